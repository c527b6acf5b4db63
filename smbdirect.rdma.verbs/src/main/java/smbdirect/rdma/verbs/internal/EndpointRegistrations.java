package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.MemoryRegion;
import smbdirect.api.rdma.RdmaException;

/**
 * The registrations of one {@link VerbsEndpoint}: {@code ibv_reg_mr} (or, for memory the peer may
 * access on a connected endpoint of a device with type 2 windows, a registration with a window bound
 * over it on the connection), deregistration (after a window's bind completed), the look-up of a
 * region by the token a peer's Send with Invalidate names, and the release of everything when the
 * endpoint closes. The bind itself is posted by the endpoint, under its lock; the waits for a bind
 * wait on that lock.
 */
final class EndpointRegistrations {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsEndpoint.class);

    private final VerbsEndpoint endpoint;
    private final VerbsRdmaProvider provider;
    private final VerbsBackend backend;
    private final CompletionGroup group;
    private final VerbsSettings settings;
    /** Every live registration of the endpoint. */
    private final Set<VerbsMemoryRegion> regions = ConcurrentHashMap.newKeySet();
    /**
     * The regions the peer may access, by the token it was given (the rkey, or the bound window's):
     * where a peer's Send with Invalidate lands.
     */
    private final ConcurrentHashMap<Integer, VerbsMemoryRegion> remoteRegions = new ConcurrentHashMap<>();

    EndpointRegistrations(VerbsEndpoint endpoint, VerbsRdmaProvider provider, CompletionGroup group) {
        this.endpoint = endpoint;
        this.provider = provider;
        this.backend = provider.backend();
        this.group = group;
        this.settings = provider.settings();
    }

    int count() {
        return regions.size();
    }

    MemoryRegion register(ByteBuffer buffer, Set<MemoryAccess> access) throws RdmaException {
        Objects.requireNonNull(buffer, "buffer");
        Objects.requireNonNull(access, "access");
        if (!buffer.isDirect()) {
            throw new RdmaException("register: buffer must be a direct ByteBuffer (ibv_reg_mr needs a native address)");
        }
        int length = buffer.remaining();
        if (length == 0) {
            throw new RdmaException("register: nothing to register (position == limit == " + buffer.position() + ")");
        }
        if (length > settings.maxRegionSize()) {
            throw new RdmaException("register: " + length + " bytes exceed maxRegionSize " + settings.maxRegionSize());
        }
        int flags;
        try {
            flags = StatusMapper.accessFlags(access);
        } catch (IllegalArgumentException e) {
            throw new RdmaException("register: " + e.getMessage());
        }
        if (endpoint.isClosed()) {
            throw new RdmaException("register: endpoint is closed");
        }
        ByteBuffer view = buffer.slice();
        boolean remote = access.contains(MemoryAccess.REMOTE_READ) || access.contains(MemoryAccess.REMOTE_WRITE);
        if (remote && provider.memoryWindows() && endpoint.state() == VerbsEndpoint.State.ESTABLISHED) {
            return registerThroughWindow(view, access, flags);
        }
        VerbsBackend.RegisteredMemory memory;
        try {
            memory = backend.register(group.pd(), view, flags);
        } catch (IOException e) {
            throw new RdmaException("ibv_reg_mr of " + length + " bytes with access " + access + " failed: "
                    + e.getMessage() + memlockHint(e, length), e);
        }
        VerbsMemoryRegion region = new VerbsMemoryRegion(endpoint, memory, view, access);
        regions.add(region);
        if (access.contains(MemoryAccess.REMOTE_READ) || access.contains(MemoryAccess.REMOTE_WRITE)) {
            remoteRegions.put(memory.remoteKey(), region);
        }
        return region;
    }

    /**
     * A region the peer may access, registered on a connected endpoint of a device with type 2 memory
     * windows: {@code ibv_reg_mr} with local rights and {@code IBV_ACCESS_MW_BIND} only, a window
     * allocated on the protection domain and bound over the whole region on this queue pair with the
     * remote rights ({@code IBV_WR_BIND_MW}, posted before anything the caller posts later, so the
     * peer cannot learn the token before the window is bound). The peer reaches the region only
     * through this connection, and its Send with Invalidate naming the token invalidates the window.
     */
    private VerbsMemoryRegion registerThroughWindow(ByteBuffer view, Set<MemoryAccess> access, int flags)
            throws RdmaException {
        VerbsBackend.RegisteredMemory memory;
        try {
            memory = backend.register(group.pd(), view,
                    (flags & VerbsConstants.ACCESS_LOCAL_WRITE) | VerbsConstants.ACCESS_MW_BIND);
        } catch (IOException e) {
            throw new RdmaException("ibv_reg_mr of " + view.remaining() + " bytes with access " + access
                    + " (for a memory window) failed: " + e.getMessage() + memlockHint(e, view.remaining()), e);
        }
        VerbsBackend.MemoryWindow window;
        try {
            window = backend.allocMw(group.pd());
        } catch (IOException e) {
            releaseQuietly(memory, null);
            throw new RdmaException("ibv_alloc_mw (type 2) for " + view.remaining() + " bytes failed: "
                    + e.getMessage(), e);
        }
        // ibv_inc_rkey: a bind gives the window a new rkey, the low 8 bits the consumer's own
        int windowKey = (window.remoteKey() & ~0xff) | ((window.remoteKey() + 1) & 0xff);
        VerbsMemoryRegion region = new VerbsMemoryRegion(endpoint, memory, view, access, window, windowKey);
        String refused = endpoint.postBind(region, memory, window, windowKey, flags);
        if (refused != null) {
            releaseQuietly(memory, window);
            throw new RdmaException(refused);
        }
        regions.add(region);
        remoteRegions.put(windowKey, region);
        return region;
    }

    /**
     * Before a window is deallocated its bind must have completed ({@code ibv_dealloc_mw} with the
     * bind still queued fails the bind and with it the connection). Off the completion thread this
     * waits for the bind's completion (at most {@code flushTimeoutMillis}; they take microseconds), so
     * the token is dead when {@link #deregister} returns. On the completion thread (a handler that
     * deregisters what it registered a moment ago) nothing can be waited for: the region is released
     * when the bind's completion is handled, right after the handler returns; returns false then.
     */
    private boolean awaitBind(VerbsMemoryRegion r) {
        boolean wait = !group.onGroupThread();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.flushTimeoutMillis());
        Object lock = endpoint.lock;
        synchronized (lock) {
            while (r.bindPending && endpoint.state() != VerbsEndpoint.State.CLOSED) {
                long left = deadline - System.nanoTime();
                if (!wait || left <= 0) {
                    if (wait) {
                        LOG.warn("{}: the bind of {} did not complete within {} ms; releasing it when it does",
                                endpoint, r, settings.flushTimeoutMillis());
                    }
                    r.releaseWhenBound = true;
                    return false;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    r.releaseWhenBound = true;
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * A registration pins its pages, counted against the process's locked-memory limit (siw counts
     * them for root too): for ENOMEM, that limit and the bytes asked.
     */
    private static String memlockHint(IOException e, long bytes) {
        return LockedMemoryLimit.explain(e, bytes, LockedMemoryLimit.current());
    }

    private void releaseQuietly(VerbsBackend.RegisteredMemory memory, VerbsBackend.MemoryWindow window) {
        try {
            if (window != null) {
                backend.deallocMw(window);
            }
            backend.deregister(memory);
        } catch (IOException e) {
            LOG.warn("{}: releasing a registration that could not be used failed: {}", endpoint, e.getMessage());
        }
    }

    void deregister(MemoryRegion region) throws RdmaException {
        VerbsMemoryRegion r = own(region, "deregister");
        remoteRegions.remove(r.token(), r);
        if (!r.claimDeregistration()) {
            regions.remove(r);
            return;
        }
        if (r.window() != null && !awaitBind(r)) {
            return;
        }
        regions.remove(r);
        String failed = r.release(backend);
        if (failed != null) {
            throw new RdmaException("releasing " + r + " failed: " + failed);
        }
    }

    /** {@code region} as one of this endpoint's, or refused naming {@code operation}. */
    VerbsMemoryRegion own(MemoryRegion region, String operation) throws RdmaException {
        Objects.requireNonNull(region, "region");
        if (!(region instanceof VerbsMemoryRegion r) || r.owner() != endpoint) {
            throw new RdmaException(operation + ": " + region + " is not registered on this endpoint");
        }
        return r;
    }

    /** As {@link #own}, registered, and {@code offset}/{@code length} inside it. */
    VerbsMemoryRegion usable(MemoryRegion region, int offset, int length, String operation) throws RdmaException {
        VerbsMemoryRegion r = own(region, operation);
        if (!r.isRegistered()) {
            throw new RdmaException(operation + ": " + r + " is deregistered");
        }
        if (offset < 0 || length < 0 || (long) offset + length > r.length()) {
            throw new RdmaException(operation + ": offset " + offset + " + length " + length
                    + " outside the region of " + r.length() + " bytes");
        }
        return r;
    }

    /** Group thread: a peer's Send with Invalidate named {@code token}; marks its region invalidated. */
    void remotelyInvalidated(int token) {
        VerbsMemoryRegion region = remoteRegions.get(token);
        if (region != null) {
            region.markRemotelyInvalidated();
        }
    }

    /** Group thread: {@code region} was released after its bind completed. */
    void released(VerbsMemoryRegion region) {
        regions.remove(region);
    }

    /** Group thread: {@code region} was invalidated locally and is released now. */
    void invalidated(VerbsMemoryRegion region) {
        regions.remove(region);
        remoteRegions.remove(region.token(), region);
    }

    /**
     * The endpoint closes: claims every registration still live (and those whose release waited for
     * their bind); {@link #releaseWindows} before the queue pair is destroyed,
     * {@link #releaseRegistrations} after.
     */
    List<VerbsMemoryRegion> claimAll() {
        List<VerbsMemoryRegion> released = new ArrayList<>();
        for (VerbsMemoryRegion region : regions) {
            boolean deferred;
            synchronized (endpoint.lock) {
                deferred = region.releaseWhenBound;
                region.releaseWhenBound = false;
            }
            if (region.claimDeregistration() || deferred) {
                released.add(region);
            }
        }
        return released;
    }

    void releaseWindows(List<VerbsMemoryRegion> released) {
        for (VerbsMemoryRegion region : released) {
            String failed = region.releaseWindow(backend);
            if (failed != null) {
                LOG.warn("ibv_dealloc_mw of {} failed while closing {}: {}", region, endpoint, failed);
            }
        }
    }

    void releaseRegistrations(List<VerbsMemoryRegion> released) {
        for (VerbsMemoryRegion region : released) {
            String failed = region.releaseRegistration(backend);
            if (failed != null) {
                LOG.warn("ibv_dereg_mr of {} failed while closing {}: {}", region, endpoint, failed);
            }
        }
        regions.clear();
        remoteRegions.clear();
    }
}
