package smbdirect.impl.engine;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectException;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;

/**
 * The upper layer's memory registrations on one connection ([MS-SMBD] 3.1.4.3 Register Buffer,
 * 3.1.4.4 Deregister Buffer) and their invalidation: least access for the peer, a buffer
 * split into regions where the provider limits their size, a local invalidate per region before
 * deregistering a remotely accessible buffer, within a budget of the send queue; a token the
 * peer invalidated with Send with Invalidate (3.1.5.8) is marked so.
 *
 * <p>Owns the registrations by token, the invalidates waiting and in flight. Every registration
 * ends with the connection. Not thread-safe except {@link #register} and
 * {@link #deregister(RegisteredBufferImpl)}, which hand over to the serial context.
 */
final class MemoryRegistrations {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryRegistrations.class);

    /** Local invalidates posted at once (their work requests share the send queue). */
    static final int INVALIDATE_BUDGET = 16;

    private final Connection connection;
    private final SerialExecutor serial;
    private final ConnectionLoss loss;
    private final Map<Integer, RegisteredBufferImpl> registrations = new HashMap<>();
    /** Posted local invalidates by work id. */
    private final Map<Long, RegisteredBufferImpl> invalidates = new HashMap<>();
    private final ArrayDeque<Runnable> invalidatesPending = new ArrayDeque<>();
    /** Registrations asked for while the close reason was provisional: they fail at the finish (serial context). */
    private final List<CompletableFuture<RegisteredBuffer>> waiting = new ArrayList<>();
    private long nextWorkId = 1;
    private int invalidatesInFlight;

    MemoryRegistrations(Connection connection, SerialExecutor serial, ConnectionLoss loss) {
        this.connection = connection;
        this.serial = serial;
        this.loss = loss;
    }

    /** Register Buffer (3.1.4.3), from any thread. */
    CompletableFuture<RegisteredBuffer> register(ByteBuffer buffer, RemoteAccess access) {
        CompletableFuture<RegisteredBuffer> result = new CompletableFuture<>();
        serial.execute(() -> doRegister(buffer, access, result));
        return result;
    }

    private void doRegister(ByteBuffer buffer, RemoteAccess access, CompletableFuture<RegisteredBuffer> result) {
        if (!connection.isEstablished()) {
            if (connection.closeReasonProvisional()) {
                waiting.add(result); // fails at the finish with the endpoint's own reason
                return;
            }
            result.completeExceptionally(connection.notEstablished());
            return;
        }
        if (buffer == null || !buffer.isDirect() || !buffer.hasRemaining() || access == null) {
            result.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.INVALID_ARGUMENT,
                    "register needs a non-empty direct buffer and an access; got " + buffer + ", " + access));
            return;
        }
        ByteBuffer slice = buffer.slice();
        Set<MemoryAccess> rights = rights(access); // R-3.1.4.3-03
        long chunk = Math.max(4096, Math.min(connection.capabilities().maxRegionSize(), Integer.MAX_VALUE));
        List<MemoryRegion> regions = new ArrayList<>();
        try {
            for (long at = 0; at < slice.capacity(); at += chunk) {
                int len = (int) Math.min(chunk, slice.capacity() - at);
                ByteBuffer part = slice.slice((int) at, len);
                regions.add(connection.endpoint().register(part, rights)); // R-3.1.4.3-02, -04
            }
        } catch (RdmaException e) {
            // R-3.1.4.3-05, -06: nothing stays accessible
            for (MemoryRegion r : regions) {
                try {
                    connection.endpoint().deregister(r);
                } catch (RdmaException ex) {
                    LOG.debug("connection {}: deregistration after a failed registration failed", connection.id, ex);
                }
            }
            result.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.RESOURCE,
                    "registration refused by the provider: " + e.getMessage(), null, e));
            return;
        }
        List<BufferDescriptor> descriptors = new ArrayList<>();
        if (access != RemoteAccess.LOCAL_ONLY) {
            for (MemoryRegion r : regions) {
                descriptors.add(new BufferDescriptor(r.address(), r.token(), r.length())); // R-3.1.4.3-07
            }
        }
        RegisteredBufferImpl rb = new RegisteredBufferImpl(this, slice, access, List.copyOf(regions), chunk,
                List.copyOf(descriptors));
        for (MemoryRegion r : regions) {
            registrations.put(r.token(), rb);
        }
        result.complete(rb);
    }

    static Set<MemoryAccess> rights(RemoteAccess access) {
        switch (access) {
            case READ:
                return EnumSet.of(MemoryAccess.REMOTE_READ);
            case WRITE:
                return EnumSet.of(MemoryAccess.REMOTE_WRITE, MemoryAccess.LOCAL_WRITE);
            case READ_WRITE:
                return EnumSet.of(MemoryAccess.REMOTE_READ, MemoryAccess.REMOTE_WRITE, MemoryAccess.LOCAL_WRITE);
            default:
                return EnumSet.of(MemoryAccess.LOCAL_WRITE);
        }
    }

    /** Whether {@code rb} is a registration of this connection. */
    boolean owns(RegisteredBufferImpl rb) {
        return rb.owner == this;
    }

    /** Deregistration (3.1.4.4), from any thread: invalidate locally, wait, then deregister. */
    void deregister(RegisteredBufferImpl rb) {
        serial.execute(() -> {
            if (rb.deregistering || rb.deregistered.isDone()) {
                return;
            }
            rb.deregistering = true;
            if (!connection.isOpen() || connection.endpoint() == null) {
                rb.valid = false;
                return; // completes when the connection releases its registrations
            }
            boolean remoteAccess = rb.access != RemoteAccess.LOCAL_ONLY && !rb.remotelyInvalidated;
            rb.valid = false;
            if (!remoteAccess) {
                finishDeregister(rb);
                return;
            }
            // R-3.1.4.4-04: fence remote access with a local invalidate per region
            rb.invalidatesOutstanding = rb.regions.size();
            for (MemoryRegion r : rb.regions) {
                invalidatesPending.add(() -> postInvalidate(rb, r));
            }
            postInvalidates();
        });
    }

    private void postInvalidates() {
        while (invalidatesInFlight < INVALIDATE_BUDGET && !invalidatesPending.isEmpty()) {
            invalidatesPending.pollFirst().run();
        }
    }

    private void postInvalidate(RegisteredBufferImpl rb, MemoryRegion r) {
        long wid = nextWorkId++;
        invalidates.put(wid, rb);
        invalidatesInFlight++;
        try {
            connection.endpoint().postLocalInvalidate(r, Connection.wr(Connection.K_INVALIDATE, wid));
        } catch (RdmaException e) {
            invalidates.remove(wid);
            invalidatesInFlight--;
            // as a flushed invalidate: the connection closes, and the region is released with its queue
            // pair when it finishes, which completes the deregistration (no remote access survives it)
            loss.closeAfterPostFailure("posting a local invalidate", e);
        }
    }

    private void finishDeregister(RegisteredBufferImpl rb) {
        RdmaException failure = null;
        for (MemoryRegion r : rb.regions) {
            registrations.remove(r.token());
            try {
                connection.endpoint().deregister(r); // R-3.1.4.4-02
            } catch (RdmaException e) {
                failure = e;
            }
        }
        if (failure != null) {
            // R-3.1.4.4-03
            rb.deregistered.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.PROVIDER_ERROR,
                    "deregistration failed: " + failure.getMessage(), null, failure));
        } else {
            rb.deregistered.complete(null);
        }
    }

    /** A local invalidate completed. */
    void onInvalidateCompleted(long wid, CompletionStatus status, int vendorError) {
        RegisteredBufferImpl rb = invalidates.remove(wid);
        if (rb == null) {
            return;
        }
        invalidatesInFlight--;
        if (status == CompletionStatus.FLUSHED) {
            return; // the connection is going down: its registrations are released when it finishes
        }
        if (status != CompletionStatus.SUCCESS) {
            rb.deregistered.completeExceptionally(new SmbDirectException(SmbDirectException.Kind.PROVIDER_ERROR,
                    "local invalidate failed: " + status, connection.closeReason(), null));
            connection.close(loss.providerError("local invalidate", status, vendorError));
        } else if (--rb.invalidatesOutstanding == 0) {
            finishDeregister(rb);
        }
        postInvalidates();
    }

    /** R-3.1.5.8-17: the peer invalidated {@code token} with a Send with Invalidate. */
    void remotelyInvalidated(int token) {
        RegisteredBufferImpl rb = registrations.get(token);
        if (rb != null) {
            rb.valid = false;
            rb.remotelyInvalidated = true;
        }
    }

    /** The connection finished: every registration ends (the endpoint's close releases the regions). */
    void releaseAll() {
        for (RegisteredBufferImpl rb : invalidates.values()) {
            rb.valid = false;
        }
        invalidates.clear();
        for (RegisteredBufferImpl rb : registrations.values()) {
            rb.valid = false;
            rb.deregistered.complete(null);
        }
        registrations.clear();
    }

    /** The connection finished: registrations asked for while its close reason was provisional fail. */
    void failWaiting(Throwable failure) {
        for (CompletableFuture<RegisteredBuffer> f : waiting) {
            f.completeExceptionally(failure);
        }
        waiting.clear();
    }

    /** Registered tokens (DTO). */
    int count() {
        return registrations.size();
    }
}
