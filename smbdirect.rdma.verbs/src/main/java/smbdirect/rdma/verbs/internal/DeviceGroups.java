package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.RdmaException;

/**
 * The {@link VerbsRdmaProvider}'s completion groups: per device in use, up to
 * {@link VerbsSettings#completionGroupsFor} groups (each a completion queue on its own completion
 * vector and the thread that delivers its endpoints' callbacks), all on the device's one
 * protection domain ({@link DeviceDomain}). An endpoint {@link #acquire acquires} the group with
 * the fewest endpoints; a new group is made when every group has one and fewer than the limit
 * exist, so connections are spread over the groups, and so over cores, as they come. A group
 * without users is retired after {@link CompletionGroup#IDLE_MILLIS} unless it is the device's
 * first ({@link #retireIdle}); all are retired with the device's last user (an endpoint, or a
 * listener bound to one of its addresses: {@link #release}); the device's asynchronous events are
 * watched while it has groups. At the provider's shutdown the groups run inline where no thread runs, let what a port that went
 * down held back run, and stop.
 *
 * <p>The users counts, the groups retiring and the thread factory are guarded by the provider's
 * monitor, which {@link VerbsRdmaProvider#start} holds too: a group created while the provider
 * starts is started exactly once, by the one or the other. The live groups of a device are an
 * array replaced on each change, read without the monitor (the device's event thread reads it).
 */
final class DeviceGroups {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsRdmaProvider.class);
    private static final CompletionGroup[] NONE = new CompletionGroup[0];

    private final VerbsRdmaProvider provider;
    /** The provider's monitor. */
    private final Object lock;
    private final VerbsBackend backend;
    private final VerbsSettings settings;
    private final LongSupplier nanoClock;
    private final IntSupplier processors;
    /** The live groups of each device key, by index; replaced (never changed in place) under {@link #lock}. */
    private final Map<Integer, CompletionGroup[]> groups = new ConcurrentHashMap<>();
    /** Groups retired while the provider runs, until their threads released them; guarded by {@link #lock}. */
    private final List<CompletionGroup> retiring = new ArrayList<>();
    /** What the completion threads are made by, once the provider started; guarded by {@link #lock}. */
    private ThreadFactory threads;

    DeviceGroups(VerbsRdmaProvider provider, VerbsBackend backend, VerbsSettings settings, LongSupplier nanoClock) {
        this(provider, backend, settings, nanoClock, Runtime.getRuntime()::availableProcessors);
    }

    DeviceGroups(VerbsRdmaProvider provider, VerbsBackend backend, VerbsSettings settings, LongSupplier nanoClock,
            IntSupplier processors) {
        this.provider = provider;
        this.lock = provider;
        this.backend = backend;
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.processors = processors;
    }

    /** How many groups {@code device} may have. */
    int limit(VerbsBackend.Device device) {
        return settings.completionGroupsFor(device.completionVectors(), processors.getAsInt(), provider.device());
    }

    /**
     * A completion group of {@code device} with one more user counted. An endpoint gets the group
     * with the fewest endpoints, or a new one (on the next completion vector) when every group has
     * one and fewer than {@link #limit} exist; a listener gets the one with the fewest endpoints.
     * The device's first group comes with its protection domain and its asynchronous events watched.
     * Every endpoint (its queue pair and registrations) and every listener bound to the device holds
     * its group until {@link #release}.
     *
     * @param endpoint an endpoint (placed by load), not a listener
     */
    CompletionGroup acquire(VerbsBackend.Device device, boolean endpoint) throws RdmaException {
        synchronized (lock) {
            provider.checkOpen();
            CompletionGroup[] live = groups.getOrDefault(device.key(), NONE);
            CompletionGroup group = null;
            for (CompletionGroup g : live) {
                if (group == null || rank(g) < rank(group)) {
                    group = g;
                }
            }
            boolean deviceFailed = live.length > 0 && live[0].domain().isFailed();
            if (group == null || endpoint && !deviceFailed && (group.endpoints > 0 || group.isFailed())
                    && live.length < limit(device)) {
                group = create(device, live);
            }
            group.users++;
            group.inUse();
            if (endpoint) {
                group.endpoints++;
            }
            return group;
        }
    }

    /** A group's place in the choice: a failed one (its completion queue failed) last, then by endpoints. */
    private static long rank(CompletionGroup group) {
        return group.isFailed() ? Long.MAX_VALUE : group.endpoints;
    }

    /** Under the monitor: a new group of {@code device}, with the lowest index free, started if the provider runs. */
    private CompletionGroup create(VerbsBackend.Device device, CompletionGroup[] live) throws RdmaException {
        DeviceDomain domain;
        if (live.length == 0) {
            try {
                domain = new DeviceDomain(backend, device, backend.allocPd(device));
            } catch (IOException e) {
                throw new RdmaException("allocating the protection domain / completion queue (cqSize "
                        + settings.cqSize() + ") failed: " + e.getMessage(), e);
            }
        } else {
            domain = live[0].domain();
            domain.retain();
        }
        int index = 0;
        while (index < live.length && live[index].index() == index) {
            index++;
        }
        int vector = index % Math.max(1, device.completionVectors());
        CompletionGroup group;
        try {
            group = new CompletionGroup(backend, settings, nanoClock, domain, index, vector);
        } catch (IOException e) {
            domain.release();
            throw new RdmaException("allocating the protection domain / completion queue (cqSize " + settings.cqSize()
                    + ", completion group " + index + " on comp_vector " + vector + ") failed: " + e.getMessage()
                    + provider.siwMappingsHint(e), e);
        }
        group.onIdle(this::retireIdle);
        CompletionGroup[] next = new CompletionGroup[live.length + 1];
        System.arraycopy(live, 0, next, 0, index);
        next[index] = group;
        System.arraycopy(live, index, next, index + 1, live.length - index);
        groups.put(device.key(), next);
        if (live.length == 0) {
            if (!backend.watchAsyncEvents(device, event -> provider.onAsyncEvent(device, event))) {
                LOG.debug("the {} backend reads no asynchronous device events", backend.features().name());
            }
        } else {
            LOG.debug("completion group {} of device {} on comp_vector {} ({} of at most {})", index, device.key(),
                    vector, next.length, limit(device));
        }
        if (provider.isRunning()) {
            group.start(threads);
        }
        return group;
    }

    /**
     * A user of {@code group} ({@link #acquire}) is gone: an endpoint after it destroyed its queue
     * pair and released its registrations, or a listener after it destroyed its identifier. The
     * device's last user retires all its groups: their completion threads stop and the completion
     * queues are destroyed (at once where no thread runs, else by each thread when its loop ends, so
     * a caller on it or waiting for it is never blocked), and the last of them deallocates the
     * protection domain. Until then a group without users stays, ready for the next connection, for
     * {@link CompletionGroup#IDLE_MILLIS} ({@link #retireIdle}), so connections that come and go do
     * not make and destroy queues and threads. The next user of the device gets new groups.
     *
     * @param endpoint the user was an endpoint, not a listener
     */
    void release(CompletionGroup group, boolean endpoint) {
        CompletionGroup[] retired;
        synchronized (lock) {
            group.users--;
            if (endpoint) {
                group.endpoints--;
            }
            int key = group.device().key();
            CompletionGroup[] live = groups.getOrDefault(key, NONE);
            boolean found = false;
            for (CompletionGroup g : live) {
                found |= g == group;
            }
            if (!found) {
                return;
            }
            if (group.users == 0) {
                group.idleSince(nanoClock.getAsLong());
            }
            for (CompletionGroup g : live) {
                if (g.users > 0) {
                    return;
                }
            }
            groups.remove(key);
            // before a new group of the device can watch its events
            backend.unwatchAsyncEvents(group.device());
            retiring.removeIf(CompletionGroup::isReleased);
            retiring.addAll(List.of(live));
            retired = live;
        }
        for (CompletionGroup g : retired) {
            g.retire();
        }
    }

    /**
     * The group's thread: {@code group} has had no user for {@link CompletionGroup#IDLE_MILLIS}. Unless
     * it is its device's first live group (the one the next connection joins when all are idle) or
     * has a user again, it is retired, so that a device's queues and threads follow its connections:
     * a burst's groups stay for the next burst, and are released when the device has been quieter
     * for a while.
     */
    void retireIdle(CompletionGroup group) {
        synchronized (lock) {
            if (group.users > 0) {
                return;
            }
            int key = group.device().key();
            CompletionGroup[] live = groups.getOrDefault(key, NONE);
            int at = -1;
            for (int i = 0; i < live.length; i++) {
                if (live[i] == group) {
                    at = i;
                }
            }
            if (at <= 0) {
                return;
            }
            CompletionGroup[] next = new CompletionGroup[live.length - 1];
            System.arraycopy(live, 0, next, 0, at);
            System.arraycopy(live, at + 1, next, at, live.length - at - 1);
            groups.put(key, next);
            retiring.removeIf(CompletionGroup::isReleased);
            retiring.add(group);
        }
        LOG.debug("completion group {} of device {} retired after {} ms without connections", group.index(),
                group.device().key(), CompletionGroup.IDLE_MILLIS);
        group.retire();
    }

    /** The first live completion group of a device key, {@code null} when the device has none. */
    CompletionGroup group(int deviceKey) {
        CompletionGroup[] live = groups.getOrDefault(deviceKey, NONE);
        return live.length == 0 ? null : live[0];
    }

    /**
     * The completion groups in use, in words ("" when none): per device, each group's completion
     * vector and connections, e.g. {@code device 1: 3 completion groups (vector:connections 0:2 1:2 2:1)}.
     */
    String describe() {
        StringBuilder text = new StringBuilder();
        for (Map.Entry<Integer, CompletionGroup[]> device : groups.entrySet()) {
            CompletionGroup[] live = device.getValue();
            if (live.length == 0) {
                continue;
            }
            text.append(text.length() == 0 ? "" : "; ").append("device ").append(device.getKey()).append(": ")
                    .append(live.length).append(live.length == 1 ? " completion group" : " completion groups")
                    .append(" of at most ").append(limit(live[0].device())).append(" (vector:connections");
            for (CompletionGroup group : live) {
                text.append(' ').append(group.vector()).append(':').append(group.attachedCount());
                if (group.isFailed()) {
                    text.append(" failed");
                }
            }
            text.append(')');
        }
        return text.toString();
    }

    /** The live completion groups of a device key, by index (any thread; a snapshot). */
    List<CompletionGroup> groups(int deviceKey) {
        return List.of(groups.getOrDefault(deviceKey, NONE));
    }

    /** Under the provider's monitor, as it starts: the groups' threads are made by {@code threadFactory}. */
    void start(ThreadFactory threadFactory) {
        threads = threadFactory;
        for (CompletionGroup[] live : groups.values()) {
            for (CompletionGroup group : live) {
                if (!group.isStarted()) {
                    group.start(threadFactory);
                }
            }
        }
    }

    /** Shutdown: one round of each group without a thread (a provider driven by a test); whether there was one. */
    boolean runInline() {
        boolean inline = false;
        for (CompletionGroup[] live : groups.values()) {
            for (CompletionGroup group : live) {
                if (!group.isStarted()) {
                    group.runOnce();
                    inline = true;
                }
            }
        }
        return inline;
    }

    /** Shutdown: what a port that went down held back (closed endpoints included) runs now. */
    void portUp() {
        for (CompletionGroup[] live : groups.values()) {
            for (CompletionGroup group : live) {
                group.portUp();
            }
        }
    }

    /**
     * Shutdown: every group stops (its device's events no longer watched), and the groups retired
     * before are awaited until their threads released them.
     */
    void stop() {
        for (CompletionGroup[] live : groups.values()) {
            if (live.length > 0) {
                backend.unwatchAsyncEvents(live[0].device());
            }
            for (CompletionGroup group : live) {
                group.stop();
            }
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
