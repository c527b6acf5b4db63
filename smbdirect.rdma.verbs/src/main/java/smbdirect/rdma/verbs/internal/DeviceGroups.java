package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.RdmaException;

/**
 * The {@link VerbsRdmaProvider}'s completion groups, one per device in use, and their lifetime: a
 * group (protection domain, completion queue, completion thread, the device's asynchronous events
 * watched) is created with its device's first user ({@link #acquire}: an endpoint, or a listener
 * bound to one of the device's addresses), counts its users, and is retired with the last
 * ({@link #release}); the next user of the device gets a new group. At the provider's shutdown
 * the groups run inline where no thread runs, let what a port that went down held back run, and
 * stop.
 *
 * <p>The users counts, the groups retiring and the thread factory are guarded by the provider's
 * monitor, which {@link VerbsRdmaProvider#start} holds too: a group created while the provider
 * starts is started exactly once, by the one or the other.
 */
final class DeviceGroups {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsRdmaProvider.class);

    private final VerbsRdmaProvider provider;
    /** The provider's monitor. */
    private final Object lock;
    private final VerbsBackend backend;
    private final VerbsSettings settings;
    private final LongSupplier nanoClock;
    private final Map<Integer, CompletionGroup> groups = new ConcurrentHashMap<>();
    /** Groups retired while the provider runs, until their threads released them; guarded by {@link #lock}. */
    private final List<CompletionGroup> retiring = new ArrayList<>();
    /** What the completion threads are made by, once the provider started; guarded by {@link #lock}. */
    private ThreadFactory threads;

    DeviceGroups(VerbsRdmaProvider provider, VerbsBackend backend, VerbsSettings settings, LongSupplier nanoClock) {
        this.provider = provider;
        this.lock = provider;
        this.backend = backend;
        this.settings = settings;
        this.nanoClock = nanoClock;
    }

    /**
     * The completion group of {@code device}, created with its first user (protection domain,
     * completion queue, completion thread, the device's asynchronous events watched), with one more
     * user counted: every endpoint (its queue pair and registrations) and every listener bound to the
     * device holds its group until {@link #release}.
     */
    CompletionGroup acquire(VerbsBackend.Device device) throws RdmaException {
        synchronized (lock) {
            provider.checkOpen();
            CompletionGroup group = groups.get(device.key());
            if (group == null) {
                try {
                    group = new CompletionGroup(backend, settings, nanoClock, device);
                } catch (IOException e) {
                    throw new RdmaException("allocating the protection domain / completion queue (cqSize "
                            + settings.cqSize() + ") failed: " + e.getMessage(), e);
                }
                groups.put(device.key(), group);
                CompletionGroup watched = group;
                if (!backend.watchAsyncEvents(device, event -> provider.onAsyncEvent(watched, event))) {
                    LOG.debug("the {} backend reads no asynchronous device events", backend.features().name());
                }
                if (provider.isRunning()) {
                    group.start(threads);
                }
            }
            group.users++;
            return group;
        }
    }

    /**
     * A user of {@code group} ({@link #acquire}) is gone: an endpoint after it destroyed its queue
     * pair and released its registrations, or a listener after it destroyed its identifier. The
     * last one retires the group: its completion thread stops and the completion queue and
     * protection domain are released (at once where no thread runs, else by that thread when its
     * loop ends, so a caller on it or waiting for it is never blocked). The next user of the device
     * gets a new group.
     */
    void release(CompletionGroup group) {
        synchronized (lock) {
            if (--group.users > 0 || !groups.remove(group.device().key(), group)) {
                return;
            }
            // before a new group of the device can watch its events
            backend.unwatchAsyncEvents(group.device());
            retiring.removeIf(CompletionGroup::isReleased);
            retiring.add(group);
        }
        group.retire();
    }

    /** The completion group of a device key, {@code null} when the device has none. */
    CompletionGroup group(int deviceKey) {
        return groups.get(deviceKey);
    }

    /** Under the provider's monitor, as it starts: the groups' threads are made by {@code threadFactory}. */
    void start(ThreadFactory threadFactory) {
        threads = threadFactory;
        for (CompletionGroup group : groups.values()) {
            if (!group.isStarted()) {
                group.start(threadFactory);
            }
        }
    }

    /** Shutdown: one round of each group without a thread (a provider driven by a test); whether there was one. */
    boolean runInline() {
        boolean inline = false;
        for (CompletionGroup group : groups.values()) {
            if (!group.isStarted()) {
                group.runOnce();
                inline = true;
            }
        }
        return inline;
    }

    /** Shutdown: what a port that went down held back (closed endpoints included) runs now. */
    void portUp() {
        for (CompletionGroup group : groups.values()) {
            group.portUp();
        }
    }

    /**
     * Shutdown: every group stops (its device's events no longer watched), and the groups retired
     * before are awaited until their threads released them.
     */
    void stop() {
        for (CompletionGroup group : groups.values()) {
            backend.unwatchAsyncEvents(group.device());
            group.stop();
        }
        groups.clear();
        List<CompletionGroup> retired;
        synchronized (lock) {
            retired = new ArrayList<>(retiring);
            retiring.clear();
        }
        for (CompletionGroup group : retired) {
            if (!group.awaitRetired()) {
                LOG.warn("the completion thread of device {} did not stop; leaving its queue allocated",
                        group.device().key());
            }
        }
    }
}
