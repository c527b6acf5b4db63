package smbdirect.impl.engine;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.RegisteredBuffer;
import smbdirect.api.RemoteAccess;
import smbdirect.api.rdma.MemoryRegion;

/**
 * A buffer registered for one connection (3.1.4.3): one memory region, or several consecutive
 * regions of {@code chunkSize} bytes when the provider limits region sizes (R-3.1.4.3-04).
 *
 * <p>Thread-safe: the validity flag is volatile; everything else is fixed or changed on the
 * connection's serial context. The buffer belongs to the transport (and the peer) until the stage
 * returned by {@link #deregister()} completed.
 */
final class RegisteredBufferImpl implements RegisteredBuffer {

    final MemoryRegistrations owner;
    final ByteBuffer buffer;
    final RemoteAccess access;
    final List<MemoryRegion> regions;
    final long chunkSize;
    final List<BufferDescriptor> descriptors;
    final CompletableFuture<Void> deregistered = new CompletableFuture<>();
    volatile boolean valid = true;
    /** Whether the peer invalidated the token with Send with Invalidate. */
    volatile boolean remotelyInvalidated;
    /** Whether deregistration started (serial context only). */
    boolean deregistering;
    /** Local invalidates posted or queued and not yet completed (serial context only). */
    int invalidatesOutstanding;

    RegisteredBufferImpl(MemoryRegistrations owner, ByteBuffer buffer, RemoteAccess access, List<MemoryRegion> regions,
            long chunkSize, List<BufferDescriptor> descriptors) {
        this.owner = owner;
        this.buffer = buffer;
        this.access = access;
        this.regions = regions;
        this.chunkSize = chunkSize;
        this.descriptors = descriptors;
    }

    @Override
    public ByteBuffer buffer() {
        return buffer.duplicate().clear();
    }

    @Override
    public int length() {
        return buffer.capacity();
    }

    @Override
    public RemoteAccess access() {
        return access;
    }

    @Override
    public List<BufferDescriptor> descriptors() {
        return descriptors;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public CompletionStage<Void> deregister() {
        owner.deregister(this);
        return deregistered;
    }

    /** The region holding byte {@code offset} of the buffer. */
    MemoryRegion regionAt(long offset) {
        return regions.get((int) (offset / chunkSize));
    }

    @Override
    public String toString() {
        return "RegisteredBuffer[length=" + length() + ", access=" + access + ", valid=" + valid + ", " + descriptors
                + "]";
    }
}
