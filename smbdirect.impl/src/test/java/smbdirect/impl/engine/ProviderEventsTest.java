package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.testsupport.AllocationCounter;

/**
 * The queue that carries provider callbacks to a busy serial context: provider order, every value
 * intact, growth under bursts, fairness towards other tasks, a cross-thread hand-off that loses
 * nothing, and no allocation once grown.
 */
class ProviderEventsTest {

    /** A reusable completion, as providers hand them over. */
    static final class Wc implements WorkCompletion {
        long wrId;
        WorkRequestType type = WorkRequestType.SEND;
        CompletionStatus status = CompletionStatus.SUCCESS;
        int length;
        boolean invalidated;
        int token;
        int vendorError;

        Wc set(long id) {
            wrId = id;
            return this;
        }

        @Override public long wrId() { return wrId; }
        @Override public WorkRequestType type() { return type; }
        @Override public CompletionStatus status() { return status; }
        @Override public int byteLength() { return length; }
        @Override public boolean hasInvalidatedToken() { return invalidated; }
        @Override public int invalidatedToken() { return token; }
        @Override public int vendorError() { return vendorError; }
    }

    /** Records what the serial context sees, in order. */
    static class Log implements ProviderEvents.Sink {
        final List<String> seen = new ArrayList<>();
        long count;
        long lastId = -1;
        boolean outOfOrder;

        @Override
        public void completion(long wrId, WorkRequestType type, CompletionStatus status, int length,
                boolean invalidated, int token, int vendorError) {
            count++;
            if (wrId != lastId + 1) {
                outOfOrder = true;
            }
            lastId = wrId;
            if (seen.size() < 10_000) {
                seen.add(wrId + ":" + type + ":" + status + ":" + length + ":" + invalidated + ":" + token + ":"
                        + vendorError);
            }
        }

        @Override
        public void established(ByteBuffer peerPrivateData) {
            seen.add("established");
        }

        @Override
        public void disconnected(DisconnectCause cause, String detail) {
            seen.add("disconnected");
        }
    }

    @Test
    void everyValueOfACompletionArrivesIntact() {
        SerialExecutor serial = new SerialExecutor();
        Log log = new Log();
        ProviderEvents events = new ProviderEvents(serial, log);
        Wc wc = new Wc();
        wc.wrId = 0x7FFF_0000_0000_0001L;
        wc.type = WorkRequestType.RECEIVE;
        wc.status = CompletionStatus.GENERAL_ERROR;
        wc.length = Integer.MAX_VALUE;
        wc.invalidated = true;
        wc.token = 0xFFFF_FFFE;
        wc.vendorError = -1;
        events.completion(wc);
        wc.wrId = -1L;
        wc.type = WorkRequestType.RDMA_READ;
        wc.status = CompletionStatus.SUCCESS;
        wc.length = 0;
        wc.invalidated = false;
        wc.token = 0;
        wc.vendorError = 0x1234_5678;
        events.completion(wc);
        assertEquals(List.of(
                0x7FFF_0000_0000_0001L + ":RECEIVE:GENERAL_ERROR:" + Integer.MAX_VALUE + ":true:-2:-1",
                "-1:RDMA_READ:SUCCESS:0:false:0:" + 0x1234_5678), log.seen);
    }

    @Test
    void aBurstWhileTheContextIsBusyKeepsProviderOrderAcrossGrowthAndEndsWithTheDisconnect() {
        SerialExecutor serial = new SerialExecutor();
        Log log = new Log();
        ProviderEvents events = new ProviderEvents(serial, log);
        int burst = ProviderEvents.INITIAL_CAPACITY * 20;
        Wc wc = new Wc();
        long[] queuedInside = new long[1];
        // the context is busy (a pump posting a window of fragments) while the burst arrives
        serial.execute(() -> {
            events.established(ByteBuffer.allocate(0));
            for (int i = 0; i < burst; i++) {
                events.completion(wc.set(i));
            }
            events.disconnected(DisconnectCause.PEER, "");
            queuedInside[0] = events.size();
        });
        assertEquals(burst + 2, queuedInside[0], "nothing runs nested inside the busy task");
        assertEquals(burst + 2, log.seen.size());
        assertEquals("established", log.seen.get(0));
        assertEquals("disconnected", log.seen.get(burst + 1));
        assertEquals(burst, log.count);
        assertTrue(!log.outOfOrder, "completions in provider order");
        assertTrue(events.grown() >= 5, "grew from 16 to at least 512 records: " + events.grown());
        assertEquals(0, events.size());
        assertEquals(0, serial.overflowed(), "one serial task carried the whole burst");
    }

    /**
     * The send loop takes the completions that arrived while it ran (here from inside the handling of
     * the first one, across a segment boundary): each is handled once, in order, the pass that was
     * scheduled for them finds them gone, and taking stops at a record that is not a completion.
     */
    @Test
    void completionsTakenEarlyFromInsideTheContextAreHandledOnceInOrderAndStopAtTheDisconnect() {
        SerialExecutor serial = new SerialExecutor();
        ProviderEvents[] holder = new ProviderEvents[1];
        int[] taken = new int[1];
        Log log = new Log() {
            @Override
            public void completion(long wrId, WorkRequestType type, CompletionStatus status, int length,
                    boolean invalidated, int token, int vendorError) {
                super.completion(wrId, type, status, length, invalidated, token, vendorError);
                if (wrId == 0) {
                    taken[0] = holder[0].takeCompletions(); // the send loop, nested in handling record 0
                }
            }
        };
        ProviderEvents events = new ProviderEvents(serial, log);
        holder[0] = events;
        int burst = ProviderEvents.INITIAL_CAPACITY * 3;
        Wc wc = new Wc();
        serial.execute(() -> {
            for (int i = 0; i < burst; i++) {
                events.completion(wc.set(i));
            }
            events.disconnected(DisconnectCause.PEER, "");
            events.completion(wc.set(burst)); // after the disconnect: stays behind it
        });
        assertEquals(burst - 1, taken[0], "every completion before the disconnect, not the ones after it");
        assertEquals(burst + 1, log.count, "each completion handled exactly once");
        assertTrue(!log.outOfOrder, "in provider order");
        assertEquals("disconnected", log.seen.get(burst));
        assertEquals(burst + "", log.seen.get(burst + 1).split(":")[0]);
        assertEquals(0, events.size());
        assertEquals(0, events.takeCompletions(), "nothing left to take");
    }

    @Test
    void recordsAddedDuringAPassRunAfterTasksThatWereAlreadyWaiting() {
        SerialExecutor serial = new SerialExecutor();
        List<String> order = new ArrayList<>();
        ProviderEvents[] holder = new ProviderEvents[1];
        Wc wc = new Wc();
        ProviderEvents events = new ProviderEvents(serial, new Log() {
            @Override
            public void completion(long wrId, WorkRequestType type, CompletionStatus status, int length,
                    boolean invalidated, int token, int vendorError) {
                order.add("completion " + wrId);
                if (wrId == 0) {
                    holder[0].completion(wc.set(1)); // an inline completion of a post made while handling 0
                }
            }
        });
        holder[0] = events;
        serial.execute(() -> {
            events.completion(wc.set(0));
            serial.execute(() -> order.add("upper-layer task"));
        });
        assertEquals(List.of("completion 0", "upper-layer task", "completion 1"), order);
    }

    @Test
    void aHandlerThatThrowsDoesNotStrandTheRecordsBehindIt() {
        SerialExecutor serial = new SerialExecutor();
        List<Long> handled = new ArrayList<>();
        ProviderEvents events = new ProviderEvents(serial, new Log() {
            @Override
            public void completion(long wrId, WorkRequestType type, CompletionStatus status, int length,
                    boolean invalidated, int token, int vendorError) {
                handled.add(wrId);
                if (wrId == 1) {
                    throw new IllegalStateException("handler bug");
                }
            }
        });
        Wc wc = new Wc();
        serial.execute(() -> {
            for (int i = 0; i < 4; i++) {
                events.completion(wc.set(i));
            }
        });
        assertEquals(List.of(0L, 1L, 2L, 3L), handled);
        events.completion(wc.set(4));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), handled, "the queue is still scheduled correctly afterwards");
    }

    @Test
    void aProducerThreadAndOtherThreadsRunningTheContextLoseAndReorderNothing() throws Exception {
        SerialExecutor serial = new SerialExecutor();
        Log log = new Log();
        ProviderEvents events = new ProviderEvents(serial, log);
        int n = 1_000_000;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable busy = () -> Thread.onSpinWait();
        // other threads keep entering the context (upper-layer sends, timers), so the queue is drained
        // by whichever of them holds it when records arrive
        // (bounded: a thread that finds the context busy may have to run everything queued meanwhile,
        // so endless submitters could keep the producer draining for ever)
        Thread[] others = new Thread[2];
        for (int t = 0; t < others.length; t++) {
            others[t] = new Thread(() -> {
                for (int i = 0; i < 200_000 && !stop.get(); i++) {
                    serial.execute(busy);
                    if ((i & 63) == 0) {
                        Thread.yield();
                    }
                }
            }, "context-user-" + t);
            others[t].setDaemon(true);
            others[t].start();
        }
        CountDownLatch produced = new CountDownLatch(1);
        Thread producer = new Thread(() -> {
            try {
                Wc wc = new Wc();
                for (int i = 0; i < n; i++) {
                    events.completion(wc.set(i));
                }
                events.disconnected(DisconnectCause.PEER, "");
            } catch (Throwable e) {
                failure.set(e);
            } finally {
                produced.countDown();
            }
        }, "provider");
        producer.setDaemon(true);
        producer.start();
        boolean finished;
        try {
            finished = produced.await(60, TimeUnit.SECONDS);
        } finally {
            stop.set(true);
            for (Thread t : others) {
                t.join(10_000);
            }
        }
        assertTrue(finished, "producer finished");
        serial.execute(() -> { }); // drain what is left, on this thread
        assertEquals(null, failure.get());
        CountDownLatch seen = new CountDownLatch(1);
        serial.execute(seen::countDown);
        assertTrue(seen.await(10, TimeUnit.SECONDS));
        assertEquals(n, log.count, "every completion handled once");
        assertTrue(!log.outOfOrder, "in provider order");
        assertEquals("disconnected", log.seen.get(log.seen.size() - 1));
        assertEquals(0, events.size());
    }

    @Test
    void aGrownQueueAllocatesNothing() {
        AllocationCounter counter = AllocationCounter.enabled();
        SerialExecutor serial = new SerialExecutor();
        Log log = new Log();
        ProviderEvents events = new ProviderEvents(serial, log);
        Wc wc = new Wc();
        long[] next = new long[1];
        Runnable burst = () -> {
            for (int i = 0; i < 600; i++) {
                events.completion(wc.set(next[0]++));
            }
        };
        for (int i = 0; i < 2_000; i++) {
            serial.execute(burst);
        }
        int grown = events.grown();
        long tid = Thread.currentThread().getId();
        long before = counter.bytes(tid);
        for (int i = 0; i < 2_000; i++) {
            serial.execute(burst);
        }
        long allocated = counter.bytes(tid) - before;
        assertEquals(4_000L * 600, log.count);
        assertTrue(!log.outOfOrder);
        assertEquals(grown, events.grown(), "no growth after the first bursts");
        assertTrue(allocated < 1024, "1,200,000 queued completions allocated " + allocated + " bytes");
    }
}
