package smbdirect.rdma.verbs.internal.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import com.ibm.disni.verbs.SVCPostRecv;

class ReceiveCallCacheTest {

    static final class Call extends SVCPostRecv {
        boolean freed;

        @Override
        public SVCPostRecv execute() {
            return this;
        }

        @Override
        public boolean isValid() {
            return !freed;
        }

        @Override
        public SVCPostRecv free() {
            freed = true;
            return this;
        }

        @Override
        public RecvWRMod getWrMod(int index) {
            return null;
        }
    }

    @Test
    void aReceiveBufferPostedAgainReusesItsCall() {
        ReceiveCallCache cache = new ReceiveCallCache(4);
        Call a = new Call();
        assertTrue(cache.put(0x1000, 1364, 7, 42, a));
        assertSame(a, cache.get(0x1000, 1364, 7, 42));
        assertNull(cache.get(0x1000, 1364, 8, 42), "another lkey is another call");
        assertNull(cache.get(0x1000, 1000, 7, 42));
        assertNull(cache.get(0x2000, 1364, 7, 42));
        assertNull(cache.get(0x1000, 1364, 7, 43));
    }

    @Test
    void onceHalfFullNewCallsAreNotKeptAndFreeReleasesAll() {
        ReceiveCallCache cache = new ReceiveCallCache(4);
        int kept = 0;
        Call[] calls = new Call[64];
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new Call();
            if (cache.put(0x1000L * i, 64, 1, 1, calls[i])) {
                kept++;
            }
        }
        assertEquals(kept, cache.size());
        assertTrue(kept >= 4 && kept < calls.length, "kept " + kept);
        for (int i = 0; i < kept; i++) {
            assertSame(calls[i], cache.get(0x1000L * i, 64, 1, 1));
        }
        assertFalse(cache.put(0xFFFF_0000L, 64, 1, 1, new Call()));
        cache.free();
        assertTrue(calls[0].freed);
        assertEquals(0, cache.size());
    }
}
