package smbdirect.example.fileserver.internal.smb2;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.SmbDirectConnection;

/**
 * The registered buffers of one connection that file data moves through: the destination of the
 * RDMA Read of a WRITE and the source of the RDMA Write of a READ. Direct buffers of
 * MaxReadWriteSize, registered {@link RemoteAccess#LOCAL_ONLY} (the client can reach none of them)
 * once and reused; made on demand up to a bound, then requests wait for one to come back.
 * Everything is deregistered when the connection ends. Thread-safe.
 */
final class RdmaBufferPool {

    private static final Logger LOG = LoggerFactory.getLogger(RdmaBufferPool.class);

    private final SmbDirectConnection connection;
    private final int size;
    private final int max;
    private final Deque<RegisteredBuffer> idle = new ArrayDeque<>();
    private final Deque<CompletableFuture<RegisteredBuffer>> waiting = new ArrayDeque<>();
    private final List<RegisteredBuffer> all = new ArrayList<>();
    private int created;
    private boolean closed;

    RdmaBufferPool(SmbDirectConnection connection, int size, int max) {
        this.connection = connection;
        this.size = size;
        this.max = max;
    }

    /** A buffer for one transfer; give it back with {@link #release}. */
    CompletableFuture<RegisteredBuffer> acquire() {
        CompletableFuture<RegisteredBuffer> result = new CompletableFuture<>();
        boolean create;
        synchronized (this) {
            if (closed) {
                result.completeExceptionally(new ConnectionGoneException("the connection is closed", null));
                return result;
            }
            RegisteredBuffer b = idle.poll();
            if (b != null) {
                result.complete(b);
                return result;
            }
            create = created < max;
            if (create) {
                created++;
            } else {
                waiting.add(result);
            }
        }
        if (create) {
            ByteBuffer memory;
            try {
                memory = ByteBuffer.allocateDirect(size);
            } catch (OutOfMemoryError e) {
                synchronized (this) {
                    created--;
                }
                LOG.warn("connection {}: no direct memory for an I/O buffer of {} bytes: {}", connection.id(), size,
                        e.toString());
                result.completeExceptionally(new SmbStatusException(NtStatus.INSUFFICIENT_RESOURCES,
                        "no memory for an I/O buffer"));
                return result;
            }
            connection.register(memory, RemoteAccess.LOCAL_ONLY).whenComplete((b, failure) -> {
                if (failure != null) {
                    synchronized (this) {
                        created--;
                    }
                    LOG.warn("connection {}: registering an I/O buffer failed: {}", connection.id(), failure.toString());
                    result.completeExceptionally(new SmbStatusException(NtStatus.INSUFFICIENT_RESOURCES,
                            "registering an I/O buffer failed: " + failure));
                    return;
                }
                boolean keep;
                synchronized (this) {
                    keep = !closed;
                    if (keep) {
                        all.add(b);
                    }
                }
                if (keep) {
                    result.complete(b);
                } else {
                    b.deregister();
                    result.completeExceptionally(new ConnectionGoneException("the connection is closed", null));
                }
            });
        }
        return result;
    }

    /** Gives a buffer back: to the next waiting request, else to the idle ones. */
    void release(RegisteredBuffer buffer) {
        CompletableFuture<RegisteredBuffer> next;
        synchronized (this) {
            if (closed) {
                return;
            }
            next = waiting.poll();
            if (next == null) {
                idle.push(buffer);
                return;
            }
        }
        next.complete(buffer);
    }

    /** Deregisters every buffer and fails every waiting request. Idempotent. */
    void close() {
        List<RegisteredBuffer> release;
        List<CompletableFuture<RegisteredBuffer>> failed;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            release = new ArrayList<>(all);
            failed = new ArrayList<>(waiting);
            all.clear();
            idle.clear();
            waiting.clear();
        }
        failed.forEach(f -> f.completeExceptionally(new ConnectionGoneException("the connection is closed", null)));
        for (RegisteredBuffer b : release) {
            b.deregister().whenComplete((v, failure) -> {
                if (failure != null) {
                    LOG.debug("deregistering an I/O buffer of connection {}: {}", connection.id(), failure.toString());
                }
            });
        }
    }
}
