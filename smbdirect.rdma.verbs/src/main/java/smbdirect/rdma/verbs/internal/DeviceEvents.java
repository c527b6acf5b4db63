package smbdirect.rdma.verbs.internal;

import java.util.ArrayDeque;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.DisconnectCause;

/**
 * The asynchronous events of the provider's device as the {@link VerbsRdmaProvider} acts on them,
 * on the backend's thread that reads them: queue pair and completion queue events go to the
 * {@link CompletionGroup}'s thread, a fatal device ends everything on it and fails the listeners,
 * port events are recorded for operators and a port that goes down ends the connections on it.
 * Also the port's state as the kernel shows it, and the device's last events by name. Thread-safe.
 */
final class DeviceEvents {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsRdmaProvider.class);

    private final VerbsRdmaProvider provider;
    private final VerbsSettings settings;
    private final DeviceAttributes device;
    /** The kernel's view of the device's port ({@link #portDownState}). */
    private final SysfsDevices sysfs = new SysfsDevices(java.nio.file.Path.of("/sys/class/infiniband"));
    /** The last port event (IBV_EVENT_PORT_ERR / PORT_ACTIVE) in words, "" before any. */
    private volatile String portEvent = "";
    /**
     * The device's last asynchronous events, oldest first, at most
     * {@value VerbsRdmaProvider#RECENT_EVENTS}; guarded by itself.
     */
    private final ArrayDeque<String> recentEvents = new ArrayDeque<>();

    DeviceEvents(VerbsRdmaProvider provider, VerbsSettings settings, DeviceAttributes device) {
        this.provider = provider;
        this.settings = settings;
        this.device = device;
    }

    /** The device's last asynchronous events by name, oldest first. */
    List<String> recent() {
        synchronized (recentEvents) {
            return List.copyOf(recentEvents);
        }
    }

    /** The last port event in words, "" before any. */
    String portEvent() {
        return portEvent;
    }

    /**
     * A backend thread: an asynchronous event of {@code group}'s device. Queue pair and completion
     * queue events go to the group's thread; a fatal device ends everything on it and fails the
     * listeners (the provider serves one device); port events are recorded for operators, and a port
     * that goes down ends the connections on it as PEER_LOST naming the event (unless
     * {@code endConnectionsOnPortDown} is off: then the transport's retries decide, connections that
     * outlive a short outage survive it, the others end as PEER_LOST).
     */
    void onAsyncEvent(List<CompletionGroup> groups, VerbsBackend.AsyncEvent event) {
        int type = event.type();
        String name = StatusMapper.asyncEventName(type);
        try {
            actOn(groups, event, type, name);
        } finally {
            // recorded once acted on: who sees it here sees its effect
            synchronized (recentEvents) {
                if (recentEvents.size() == VerbsRdmaProvider.RECENT_EVENTS) {
                    recentEvents.removeFirst();
                }
                recentEvents.addLast(name + (event.port() != 0 ? " (port " + event.port() + ")" : ""));
            }
        }
    }

    private void actOn(List<CompletionGroup> groups, VerbsBackend.AsyncEvent event, int type, String name) {
        switch (type) {
            case VerbsConstants.EVENT_QP_FATAL, VerbsConstants.EVENT_QP_REQ_ERR, VerbsConstants.EVENT_QP_ACCESS_ERR,
                    VerbsConstants.EVENT_COMM_EST, VerbsConstants.EVENT_SQ_DRAINED, VerbsConstants.EVENT_PATH_MIG,
                    VerbsConstants.EVENT_PATH_MIG_ERR, VerbsConstants.EVENT_QP_LAST_WQE_REACHED -> {
                if (event.qp() != null) {
                    onQueuePairEvent(groups, event.qp(), type);
                }
            }
            case VerbsConstants.EVENT_CQ_ERR -> {
                String text = name + ": the completion queue overran or failed; its completions are lost";
                for (CompletionGroup group : groups) {
                    // the group of that queue; every group where the event does not say which
                    if (event.cq() == null || event.cq() == group.cq()) {
                        group.execute(() -> group.cqFailed(text));
                    }
                }
            }
            case VerbsConstants.EVENT_DEVICE_FATAL -> {
                String text = name + ": the RDMA device failed; restart the device's driver and the provider";
                for (CompletionGroup group : groups) {
                    group.execute(() -> group.deviceFailed(text));
                }
                provider.failListeners(DisconnectCause.DEVICE_REMOVED, text);
            }
            case VerbsConstants.EVENT_PORT_ERR -> {
                portEvent = "port " + event.port() + " down (" + name + " at " + java.time.Instant.now() + ")";
                if (settings.endConnectionsOnPortDown()) {
                    String text = portDownText(event.port());
                    LOG.warn("RDMA device port {} is down ({}): ending its connections", event.port(), name);
                    for (CompletionGroup group : groups) {
                        group.execute(() -> group.portDown(event.port(), text));
                    }
                } else {
                    LOG.warn("RDMA device port {} is down ({}): connections wait for it within their transport retries",
                            event.port(), name);
                }
            }
            case VerbsConstants.EVENT_PORT_ACTIVE -> {
                portEvent = "port " + event.port() + " active again (" + name + " at " + java.time.Instant.now() + ")";
                LOG.info("RDMA device port {} is active ({})", event.port(), name);
                for (CompletionGroup group : groups) {
                    group.execute(group::portUp);
                }
            }
            default -> LOG.info("RDMA device event {} (port {})", name, event.port());
        }
    }

    /**
     * A queue pair event goes to the group whose endpoint owns the queue pair, on that group's
     * thread; where no group's endpoint owns it now (one being set up or closed), every group looks
     * on its thread.
     */
    private static void onQueuePairEvent(List<CompletionGroup> groups, VerbsBackend.QueuePair qp, int type) {
        for (CompletionGroup group : groups) {
            if (group.owns(qp)) {
                group.execute(() -> group.onQueuePairEvent(qp, type));
                return;
            }
        }
        if (groups.isEmpty()) {
            LOG.debug("{} of a queue pair without endpoint (closed)", StatusMapper.asyncEventName(type));
        }
        for (CompletionGroup group : groups) {
            group.execute(() -> {
                if (!group.onQueuePairEvent(qp, type)) {
                    LOG.debug("{} of a queue pair without endpoint in completion group {} (closed)",
                            StatusMapper.asyncEventName(type), group.index());
                }
            });
        }
    }

    /** Why a connection ended when port {@code port} of the device went down. */
    static String portDownText(int port) {
        return StatusMapper.asyncEventName(VerbsConstants.EVENT_PORT_ERR) + ": port " + port
                + " of the RDMA device went down (its link or network interface); the connection ended with it";
    }

    /**
     * Port 1's state as the kernel shows it ({@code /sys/class/infiniband/DEVICE/ports/1/state}, "1:
     * DOWN"), when it is not ACTIVE; null when it is, or cannot be told. Read when a connection ends
     * by the CM's word, which may come before the port event.
     */
    String portDownState() {
        String name = device != null ? device.name() : settings.deviceName();
        if (name == null || name.isEmpty()) {
            return null;
        }
        String state = sysfs.portState(name, 1);
        return state == null || state.startsWith("4") ? null : state;
    }
}
