package smbdirect.rdma.mock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

class IntMapTest {

    @Test
    void behavesLikeAHashMapUnderRandomPutsAndRemoves() {
        IntMap<String> map = new IntMap<>();
        Map<Integer, String> reference = new HashMap<>();
        Random random = new Random(42);
        for (int i = 0; i < 200_000; i++) {
            int key = random.nextInt(512) + 1;
            if (random.nextBoolean()) {
                map.put(key, "v" + i);
                reference.put(key, "v" + i);
            } else {
                assertEquals(reference.remove(key), map.remove(key));
            }
            int probe = random.nextInt(512) + 1;
            assertEquals(reference.get(probe), map.get(probe));
            assertEquals(reference.size(), map.size());
        }
        assertEquals(reference.size(), map.values().size());
        assertNull(map.get(0));
    }
}
