package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import smbdirect.rdma.verbs.internal.CompletionBatch;
import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.SendRequest;
import smbdirect.rdma.verbs.internal.VerbsConstants;
import smbdirect.testsupport.AllocationCounter;

/**
 * The inline verbs (ibv_post_send, ibv_post_recv, ibv_poll_cq, ibv_req_notify_cq) through
 * ibv_context.ops of a stand-in driver compiled against rdma-core's headers: what the driver reads
 * from the work requests (with rdma-core's struct definitions) is what the provider asked for, what
 * it writes into ibv_wc is what the provider gets, a failed post names the call and errno, a
 * destroyed handle or a closed backend never reaches C, and posting and polling allocate nothing.
 */
class InlineVerbsTest {

    private FakeDriver driver;
    private RdmaCoreBackend backend;
    private QpHandle qp;
    private CqHandle cq;
    /** The write end of the pipe behind the stand-in event channel: a byte written makes it readable. */
    private int channelWriteFd;

    @BeforeEach
    void wire() throws Throwable {
        driver = FakeDriver.load();
        driver.postResult(0);
        driver.autoComplete(false);
        MemorySegment ctx = driver.context();
        qp = new QpHandle(driver.qp(ctx, 77));
        cq = new CqHandle(driver.cq(ctx), MemorySegment.NULL, 8);
        MemorySegment writeFd = Arena.ofAuto().allocate(JAVA_INT);
        backend = new RdmaCoreBackend(driver.eventChannel(writeFd));
        channelWriteFd = writeFd.get(JAVA_INT, 0);
    }

    @AfterEach
    void close() {
        backend.close();
    }

    @Test
    void aWaitForACompletionEventEndsAtOnceWhenWokenThroughItsEventfd() throws Throwable {
        int fd = Natives.EVENTFD.call("", (h, a, capture) -> (int) h.invokeExact(capture, 0,
                Abi.EFD_NONBLOCK | Abi.EFD_CLOEXEC));
        assertTrue(fd >= 0, "eventfd");
        CqHandle waking = new CqHandle(driver.cq(driver.context()), MemorySegment.NULL, 8, fd);
        java.util.concurrent.CompletableFuture<Long> waited = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            long start = System.nanoTime();
            try {
                assertFalse(backend.awaitCompletionEvent(waking, 600_000), "woken, not a completion event");
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return System.nanoTime() - start;
        });
        // a wake before the wait began makes the wait return at once as well: either order ends it
        assertTrue(backend.wakeCompletionWait(waking));
        long nanos = waited.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(nanos < java.util.concurrent.TimeUnit.SECONDS.toNanos(30), "ended long before the 10 min poll");
        // the counter was read back: the next wait lasts its timeout
        assertFalse(backend.awaitCompletionEvent(waking, 50));
        int closed = Natives.CLOSE_QUIET.invoke(fd); // (destroyCq would hand the fake driver's queue to libibverbs)
    }

    @Test
    void aQueueIsPolledAndArmedWhileTheCompletionThreadWaitsOnIt() throws Throwable {
        // what rdma_create_qp on the queue takes as well: a thread creating a queue pair for a new
        // connection is not held up by the completion thread's wait on the queue
        int fd = Natives.EVENTFD.call("", (h, a, capture) -> (int) h.invokeExact(capture, 0,
                Abi.EFD_NONBLOCK | Abi.EFD_CLOEXEC));
        assertTrue(fd >= 0, "eventfd");
        CqHandle waited = new CqHandle(driver.cq(driver.context()), MemorySegment.NULL, 8, fd);
        java.util.concurrent.CompletableFuture<Boolean> wait = new java.util.concurrent.CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                wait.complete(backend.awaitCompletionEvent(waited, 600_000));
            } catch (Throwable t) {
                wait.completeExceptionally(t);
            }
        }, "completion-waiter");
        waiter.start();
        try {
            awaitInPoll(waiter);
            java.util.concurrent.CompletableFuture<Integer> polled = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            backend.requestNotify(waited);
                            return backend.poll(waited, new CompletionBatch(8));
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
            assertEquals(0, polled.get(30, java.util.concurrent.TimeUnit.SECONDS), "armed and polled (empty)");
            assertTrue(inPoll(waiter), "answered while the completion thread still waits in poll(2)");
        } finally {
            backend.wakeCompletionWait(waited);
            waiter.join(30_000);
            int closed = Natives.CLOSE_QUIET.invoke(fd);
        }
        assertFalse(wait.get(1, java.util.concurrent.TimeUnit.SECONDS), "woken, not a completion event");
    }

    @Test
    void anIdentifierIsCreatedWhileTheCmThreadWaitsOnTheEventChannel() throws Throwable {
        // a new connection's rdma_create_id is not held up by the CM thread's wait for the next event
        java.util.concurrent.CompletableFuture<Object> read = new java.util.concurrent.CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                read.complete(String.valueOf(backend.nextCmEvent(600_000)));
            } catch (Throwable t) {
                read.complete(t);
            }
        }, "cm-reader");
        reader.start();
        try {
            awaitInPoll(reader);
            java.util.concurrent.CompletableFuture<String> created = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return "created " + backend.createId();
                        } catch (NativeCallException e) {
                            return e.call(); // librdmacm refuses the stand-in channel: an answer all the same
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
            String answer = created.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertTrue(answer.equals("rdma_create_id") || answer.startsWith("created "), answer);
            assertTrue(inPoll(reader), "answered while the CM thread still waits in poll(2)");
        } finally {
            // a byte in the pipe ends the wait: the reader goes on to rdma_get_cm_event
            MemorySegment one = Arena.ofAuto().allocate(8);
            assertEquals(1L, Natives.WRITE_QUIET.invoke(channelWriteFd, one, 1L));
            reader.join(30_000);
        }
        assertFalse(reader.isAlive(), "the reader left its wait: " + read.getNow(null));
    }

    /** Waits (bounded) until {@code t} is in its wait in poll(2). */
    private static void awaitInPoll(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (!inPoll(t)) {
            assertTrue(System.nanoTime() < deadline && t.isAlive(), t.getName() + " never reached poll(2)");
            Thread.sleep(5); // not a protocol event: a thread of this test reaching a native call
        }
    }

    private static boolean inPoll(Thread t) {
        for (StackTraceElement e : t.getStackTrace()) {
            if (e.getClassName().endsWith("Descriptors") && e.getMethodName().equals("waitReadable")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aSendWorkRequestReachesTheDriverFieldForField() throws Throwable {
        SendRequest r = new SendRequest();
        r.opcode = VerbsConstants.WR_RDMA_WRITE;
        r.wrId = 0x1122_3344_5566_7788L;
        r.sendFlags = VerbsConstants.SEND_SIGNALED;
        r.sgeAddress = 0x7f00_1234_5000L;
        r.sgeLength = 65536;
        r.sgeLocalKey = 0x0a0b0c0d;
        r.remoteAddress = 0x0000_7e00_dead_b000L;
        r.remoteKey = 0x01020304;
        r.invalidateKey = 0;
        backend.postSend(qp, r);
        long[] expected = {r.wrId, r.opcode, r.sendFlags, 0, r.remoteAddress, r.remoteKey, 1, r.sgeAddress, 65536,
            0x0a0b0c0d, 0};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], driver.send(i), "fake_send field " + i);
        }
        r.opcode = VerbsConstants.WR_SEND_WITH_INV;
        r.invalidateKey = 0xfeedbeef;
        backend.postSend(qp, r);
        assertEquals(9, driver.send(1));
        assertEquals(0xfeedbeefL, driver.send(3), "invalidate_rkey (the imm_data union)");
        assertEquals(0xfeedbeefL, driver.send(5), "and wr.rdma.rkey, where rdma-core's siw provider reads it");
    }

    @Test
    void aPostTakesNoLockOfTheBackendBesideTheCallersOwn() throws Throwable {
        // the caller (the endpoint) serializes its posts under its own lock; the backend takes none:
        // a post completes while another thread holds the queue pair's monitor
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (qp) {
                held.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        holder.start();
        try {
            assertTrue(held.await(30, java.util.concurrent.TimeUnit.SECONDS));
            java.util.concurrent.CompletableFuture<Void> posted = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    SendRequest r = new SendRequest();
                    r.opcode = VerbsConstants.WR_SEND;
                    r.wrId = 5;
                    backend.postSend(qp, r);
                    backend.postRecv(qp, 6, 0x1000, 64, 7);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            posted.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(5, driver.send(0), "the send reached the driver");
        } finally {
            release.countDown();
            holder.join();
        }
    }

    @Test
    void aTypeTwoMemoryWindowIsAllocatedBoundAndDeallocatedThroughTheContextsOps() throws Throwable {
        MemorySegment ctx = driver.context();
        PdHandle pd = new PdHandle(driver.pd(ctx), new DeviceHandle(ctx, 1));
        long[] before = driver.mws();
        MwHandle mw = (MwHandle) backend.allocMw(pd);
        long[] after = driver.mws();
        assertEquals(before[0] + 1, after[0]);
        assertEquals(VerbsConstants.MW_TYPE_2, after[2], "ibv_alloc_mw(pd, IBV_MW_TYPE_2)");
        assertEquals(0x00abcd00 + after[0], mw.remoteKey() & 0xffffffffL, "the rkey read from struct ibv_mw");
        MrHandle mr = new MrHandle(driver.mr(ctx, pd.ptr, 0x7f00_4000_0000L, 8192, 0x11, 0),
                java.nio.ByteBuffer.allocateDirect(1));
        SendRequest r = new SendRequest();
        r.opcode = VerbsConstants.WR_BIND_MW;
        r.wrId = 0x42;
        r.sendFlags = VerbsConstants.SEND_SIGNALED;
        r.bindWindow = mw;
        r.bindKey = (mw.remoteKey() & ~0xff) | ((mw.remoteKey() + 1) & 0xff);
        r.bindRegion = mr;
        r.bindAddress = 0x7f00_4000_0000L;
        r.bindLength = 8192;
        r.bindAccess = VerbsConstants.ACCESS_REMOTE_WRITE;
        backend.postSend(qp, r);
        assertEquals(VerbsConstants.WR_BIND_MW, driver.send(1));
        assertEquals(0, driver.send(6), "num_sge: a bind carries no data");
        assertEquals(mw.ptr.address(), driver.send(11), "bind_mw.mw");
        assertEquals(r.bindKey & 0xffffffffL, driver.send(12), "bind_mw.rkey");
        assertEquals(mr.ptr.address(), driver.send(13), "bind_info.mr");
        assertEquals(0x7f00_4000_0000L, driver.send(14));
        assertEquals(8192, driver.send(15));
        assertEquals(VerbsConstants.ACCESS_REMOTE_WRITE, driver.send(16), "mw_access_flags");
        r.opcode = VerbsConstants.WR_SEND;
        r.bindWindow = null;
        backend.postSend(qp, r);
        assertEquals(1, driver.send(6), "the next Send carries its SGE again");
        backend.deallocMw(mw);
        assertEquals(after[1] + 1, driver.mws()[1]);
        NativeCallException again = assertThrows(NativeCallException.class, () -> backend.deallocMw(mw));
        assertEquals(22, again.errno());
        assertEquals(after[1] + 1, driver.mws()[1], "a deallocated window never reaches the driver again");
        r.opcode = VerbsConstants.WR_BIND_MW;
        r.bindWindow = mw;
        assertEquals(22, assertThrows(NativeCallException.class, () -> backend.postSend(qp, r)).errno(),
                "a bind of a deallocated window is refused before C");
        driver.allocMwErrno(95);
        try {
            NativeCallException refused = assertThrows(NativeCallException.class, () -> backend.allocMw(pd));
            assertTrue(refused.getMessage().startsWith("ibv_alloc_mw failed: errno 95 EOPNOTSUPP"),
                    refused.getMessage());
        } finally {
            driver.allocMwErrno(0);
        }
    }

    @Test
    void aReceiveWorkRequestReachesTheDriverFieldForField() throws Throwable {
        backend.postRecv(qp, 0x8000_0000_0000_0042L, 0x7f00_aaaa_0000L, 1364, 0x55);
        long[] expected = {0x8000_0000_0000_0042L, 1, 0x7f00_aaaa_0000L, 1364, 0x55, 0};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], driver.recv(i), "fake_recv field " + i);
        }
    }

    @Test
    void completionsComeBackFieldForFieldInOrder() throws Throwable {
        driver.script(1, VerbsConstants.WC_SUCCESS, VerbsConstants.WC_RECV, 0, 512, 0x99, VerbsConstants.WC_WITH_INV, 77);
        driver.script(2, VerbsConstants.WC_REM_ACCESS_ERR, VerbsConstants.WC_RDMA_READ, 0x8a, 0, 0, 0, 77);
        driver.script(3, VerbsConstants.WC_WR_FLUSH_ERR, 0, 0, 0, 0, 0, 77);
        CompletionBatch batch = new CompletionBatch(2);
        assertEquals(2, backend.poll(cq, batch), "at most the batch");
        assertEquals(1, batch.wrId(0));
        assertEquals(VerbsConstants.WC_RECV, batch.opcode(0));
        assertEquals(512, batch.byteLength(0));
        assertEquals(0x99, batch.immData(0), "invalidated_rkey");
        assertEquals(VerbsConstants.WC_WITH_INV, batch.wcFlags(0));
        assertEquals(VerbsConstants.WC_REM_ACCESS_ERR, batch.status(1));
        assertEquals(0x8a, batch.vendorError(1));
        assertEquals(1, backend.poll(cq, batch));
        assertEquals(3, batch.wrId(0));
        assertEquals(VerbsConstants.WC_WR_FLUSH_ERR, batch.status(0));
        assertEquals(0, backend.poll(cq, batch));
        long notifies = driver.calls()[3];
        backend.requestNotify(cq);
        assertEquals(notifies + 1, driver.calls()[3]);
    }

    @Test
    void aRefusedPostNamesTheCallAndTheErrnoTheDriverReturned() throws Throwable {
        driver.postResult(12);
        NativeCallException send = assertThrows(NativeCallException.class, () -> backend.postSend(qp, new SendRequest()));
        assertEquals("ibv_post_send", send.call());
        assertEquals(12, send.errno());
        assertTrue(send.getMessage().startsWith("ibv_post_send failed: errno 12 ENOMEM (Cannot allocate memory)"),
                send.getMessage());
        NativeCallException recv = assertThrows(NativeCallException.class, () -> backend.postRecv(qp, 1, 2, 3, 4));
        assertEquals("ibv_post_recv failed: errno 12 ENOMEM (Cannot allocate memory) (wr_id 0x1)", recv.getMessage());
    }

    @Test
    void aDestroyedQueuePairOrCompletionQueueNeverReachesTheDriver() throws Throwable {
        long[] before = driver.calls();
        qp.retired = true; // what a destroy sets first, before it waits for a post in progress
        qp.destroyed = true;
        cq.destroyed = true;
        NativeCallException e = assertThrows(NativeCallException.class, () -> backend.postSend(qp, new SendRequest()));
        assertEquals("ibv_post_send failed: errno 22 EINVAL (the queue pair was destroyed)", e.getMessage());
        assertEquals(22, assertThrows(NativeCallException.class, () -> backend.postRecv(qp, 1, 2, 3, 4)).errno());
        assertEquals("ibv_poll_cq", assertThrows(NativeCallException.class,
                () -> backend.poll(cq, new CompletionBatch(1))).call());
        assertEquals("ibv_req_notify_cq", assertThrows(NativeCallException.class, () -> backend.requestNotify(cq)).call());
        assertEquals("ibv_get_cq_event", assertThrows(NativeCallException.class,
                () -> backend.awaitCompletionEvent(cq, 1)).call());
        assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(driver.calls()));
    }

    @Test
    void aClosedBackendRefusesEveryCallWithEnodev() throws Throwable {
        backend.close();
        NativeCallException e = assertThrows(NativeCallException.class, () -> backend.postSend(qp, new SendRequest()));
        assertEquals("ibv_post_send failed: errno 19 ENODEV (the RDMA backend is closed)", e.getMessage());
        assertEquals(19, assertThrows(NativeCallException.class, () -> backend.poll(cq, new CompletionBatch(1))).errno());
        assertEquals("rdma_create_id", assertThrows(NativeCallException.class, backend::createId).call());
        assertEquals("rdma_get_cm_event", assertThrows(NativeCallException.class, () -> backend.nextCmEvent(1)).call());
        backend.close(); // twice: harmless
    }

    @Test
    void anIdentifierWithoutDeviceOrDestroyedIsRefusedByName() throws Throwable {
        CmIdHandle id = new CmIdHandle(driver.unboundId());
        NativeCallException device = assertThrows(NativeCallException.class, () -> backend.device(id));
        assertEquals("rdma_cm_id.verbs", device.call());
        assertEquals(19, device.errno());
        NativeCallException qpOnUnbound = assertThrows(NativeCallException.class, () -> backend.createQp(id, null, cq, 4, 4));
        assertEquals("rdma_create_qp", qpOnUnbound.call());
        assertEquals(22, qpOnUnbound.errno());
        id.destroyed = true;
        NativeCallException bind = assertThrows(NativeCallException.class,
                () -> backend.bindAddr(id, new java.net.InetSocketAddress("10.0.2.15", 0)));
        assertEquals("rdma_bind_addr failed: errno 22 EINVAL (" + id + " was destroyed)", bind.getMessage());
        assertEquals(-1, backend.disconnect(id));
        backend.destroyId(id); // a destroyed identifier is not destroyed twice
    }

    @Test
    void aWaitOnTheCmChannelTimesOutWithNothingToRead() throws Throwable {
        long start = System.nanoTime();
        assertSame(null, backend.nextCmEvent(50));
        assertTrue(System.nanoTime() - start >= 40_000_000L, "waited in poll(2) for the timeout");
    }

    @Test
    void postingAndPollingAllocateNothingInSteadyState() throws Throwable {
        AllocationCounter threads = AllocationCounter.enabled();
        driver.autoComplete(true);
        SendRequest r = new SendRequest();
        r.opcode = VerbsConstants.WR_SEND;
        r.sendFlags = VerbsConstants.SEND_SIGNALED;
        r.sgeLength = 64;
        CompletionBatch batch = new CompletionBatch(8);
        long sum = round(r, batch, 200_000); // warm: interpreter, C1, C2
        long id = Thread.currentThread().threadId();
        long allocated = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 5 && allocated != 0; attempt++) {
            long before = threads.bytes(id);
            sum += round(r, batch, 100_000);
            allocated = threads.bytes(id) - before;
        }
        assertEquals(0, allocated, "bytes allocated by 100,000 rounds of post send, post receive, poll (8 "
                + "completions) and request notify (checksum " + sum + ")");
    }

    /**
     * The wait in poll(2) that the completion thread (completion channel) and the CM thread (event
     * channel) use allocates nothing either: a downcall capturing errno would allocate per call
     * unless C2 removes it, so the wait captures errno only when a call failed. Here on the event
     * channel, which has nothing to read.
     */
    @Test
    void waitingOnAChannelAllocatesNothing() throws Throwable {
        AllocationCounter threads = AllocationCounter.enabled();
        for (int i = 0; i < 50_000; i++) {
            backend.nextCmEvent(0);
        }
        long id = Thread.currentThread().threadId();
        long allocated = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 5 && allocated != 0; attempt++) {
            long before = threads.bytes(id);
            for (int i = 0; i < 20_000; i++) {
                backend.nextCmEvent(0);
            }
            allocated = threads.bytes(id) - before;
        }
        assertEquals(0, allocated, "bytes allocated by 20,000 waits in poll(2)");
    }

    private long round(SendRequest r, CompletionBatch batch, int rounds) throws Exception {
        long sum = 0;
        for (int i = 0; i < rounds; i++) {
            r.wrId = i;
            backend.postSend(qp, r);
            backend.postRecv(qp, i, 0x1000, 64, 7);
            int n = backend.poll(cq, batch);
            sum += n + batch.wrId(n - 1);
            backend.requestNotify(cq);
        }
        return sum;
    }
}
