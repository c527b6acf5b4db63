package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.testsupport.AllocationCounter;

/** Posting and completing (receive, send) allocate nothing once warm. */
class SteadyStateAllocationTest {

    /** A fake whose post and poll paths keep primitive rings only. */
    static final class RingBackend extends FakeBackend {
        private final long[] wrIds = new long[1024];
        private final int[] opcodes = new int[1024];
        private int head;
        private int size;

        @Override
        public void postSend(QueuePair qp, SendRequest r) {
            push(r.wrId, VerbsConstants.WC_SEND);
        }

        @Override
        public void postRecv(QueuePair qp, long wrId, long address, int length, int localKey) {
            push(wrId, VerbsConstants.WC_RECV);
        }

        private void push(long wrId, int opcode) {
            int i = (head + size++) & 1023;
            wrIds[i] = wrId;
            opcodes[i] = opcode;
        }

        @Override
        public int poll(CompletionQueue cq, CompletionBatch batch) {
            int n = 0;
            while (n < batch.capacity() && size > 0) {
                batch.set(n++, wrIds[head], VerbsConstants.WC_SUCCESS, opcodes[head], 0, 64, 0, 0, 0);
                head = (head + 1) & 1023;
                size--;
            }
            return n;
        }
    }

    static final class Counting implements RdmaEndpointHandler {
        long successes;
        long failures;

        @Override
        public void onEstablished(ByteBuffer peerPrivateData) {
        }

        @Override
        public void onCompletion(WorkCompletion completion) {
            if (completion.status() == CompletionStatus.SUCCESS) {
                successes++;
            } else {
                failures++;
            }
        }

        @Override
        public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        }
    }

    @Test
    void postAndCompleteAllocateNothingInSteadyState() throws Exception {
        AllocationCounter threads = AllocationCounter.enabled();
        Harness h = new Harness(VerbsSettings.defaults(), new RingBackend());
        Counting handler = new Counting();
        RecordingHandler setup = new RecordingHandler();
        VerbsEndpoint ep = h.established(setup, 16, 16);
        assertEquals(1, setup.established);
        // swap in the counting handler by a fresh endpoint on the same harness
        VerbsEndpoint counted = (VerbsEndpoint) h.provider.createEndpoint(new EndpointSettings(16, 16), handler);
        counted.connect(Harness.PEER, new smbdirect.api.rdma.ConnectParameters(null, 1, 1));
        h.backend.event(VerbsConstants.CM_EVENT_ADDR_RESOLVED, null, counted.cmId());
        h.backend.event(VerbsConstants.CM_EVENT_ROUTE_RESOLVED, null, counted.cmId());
        h.backend.event(VerbsConstants.CM_EVENT_ESTABLISHED, null, counted.cmId());
        h.pump();
        MemoryRegion region = counted.register(ByteBuffer.allocateDirect(4096),
                Harness.access(MemoryAccess.LOCAL_WRITE));
        CompletionGroup group = counted.group();
        run(counted, region, group, 20_000);
        long id = Thread.currentThread().getId();
        long before = threads.bytes(id);
        run(counted, region, group, 20_000);
        long allocated = threads.bytes(id) - before;
        assertEquals(80_000, handler.successes);
        assertEquals(0, handler.failures);
        assertTrue(allocated < 16 * 1024, "40000 posts and completions allocated " + allocated + " bytes");
        ep.close();
    }

    private static void run(VerbsEndpoint ep, MemoryRegion region, CompletionGroup group, int rounds)
            throws Exception {
        for (int i = 0; i < rounds; i++) {
            ep.postReceive(region, 0, 2048, i);
            ep.postSend(region, 2048, 64, i);
            group.runOnce();
        }
    }
}
