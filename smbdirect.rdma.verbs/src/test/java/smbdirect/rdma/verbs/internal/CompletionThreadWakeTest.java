package smbdirect.rdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A completion thread blocked in the device's completion-event wait ({@code poll(2)} on the
 * completion channel) runs a task handed to it with {@link CompletionGroup#execute} at once: the
 * backend wakes the wait (rdma-core: an eventfd in the poll set), without a completion and long
 * before the wait's timeout ({@code eventTimeoutMillis}, ten minutes here).
 */
class CompletionThreadWakeTest {

    private static VerbsSettings waitingMillis(int eventTimeoutMillis) {
        VerbsSettings d = VerbsSettings.defaults();
        return new VerbsSettings("", "", "AUTO", d.cqSize(), d.maxSendWorkRequests(), d.maxReceiveWorkRequests(),
                d.maxMessageSize(), d.maxReadDepth(), d.maxRegionSize(), false, d.pollBatch(), eventTimeoutMillis,
                d.resolveTimeoutMillis(), d.flushTimeoutMillis(), d.retryCount(), d.rnrRetryCount(),
                d.listenBacklog(), false);
    }

    private static DeviceDomain domain(FakeBackend backend) throws java.io.IOException {
        return new DeviceDomain(backend, backend.device, backend.allocPd(backend.device));
    }

    @Test
    void aTaskExecutedWhileTheThreadWaitsInTheDeviceRunsAtOnce() throws Exception {
        FakeBackend backend = new FakeBackend();
        CompletionGroup group = new CompletionGroup(backend, waitingMillis(600_000), System::nanoTime, domain(backend), 0, 0);
        group.attach(8); // with an endpoint the thread waits for completion events, not in a park
        group.start(Executors.defaultThreadFactory());
        try {
            assertTrue(backend.awaitWaiter(10_000), "the completion thread waits in the device");
            CountDownLatch ran = new CountDownLatch(1);
            group.execute(ran::countDown);
            assertTrue(ran.await(10, TimeUnit.SECONDS), "the task ran without a completion or the 10 min timeout");
            assertTrue(backend.wakes >= 1, "the wait was woken through the backend");
            assertTrue(backend.noCompletions());
        } finally {
            group.stop();
        }
        assertTrue(backend.calls.contains("destroyCq"), "stop woke the wait and released the queue");
    }

    @Test
    void withoutTheWakeTheTaskWaitsForTheWaitsTimeout() throws Exception {
        FakeBackend backend = new FakeBackend();
        backend.wakeable = false; // as DiSNI: no way to interrupt ibv_get_cq_event's poll
        CompletionGroup group = new CompletionGroup(backend, waitingMillis(2_000), System::nanoTime, domain(backend), 0, 0);
        group.attach(8);
        group.start(Executors.defaultThreadFactory());
        try {
            assertTrue(backend.awaitWaiter(10_000));
            CountDownLatch ran = new CountDownLatch(1);
            group.execute(ran::countDown);
            assertFalse(ran.await(300, TimeUnit.MILLISECONDS), "nothing ends the wait early");
            assertTrue(ran.await(10, TimeUnit.SECONDS), "the task runs after the wait's timeout");
        } finally {
            group.stop();
        }
    }
}
