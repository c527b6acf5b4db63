package smbdirect.rdma.verbs.internal.loopback;

import smbdirect.rdma.verbs.internal.VerbsBackend;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The wire between {@link LoopbackBackend}s: one software RC device per backend, each with its own
 * IPv4 address, reaching each other through this object. It holds the port bindings and the
 * listeners (the RDMA CM's view) and hands out memory keys and virtual addresses that are unique on
 * the network.
 *
 * <p>Thread-safety: every piece of state of the network and of its backends is guarded by this
 * object's monitor; waits ({@code rdma_get_cm_event}, {@code ibv_get_cq_event}) wait on it and
 * every state change notifies it. A backend never calls out of the network while holding it, so
 * callers (the provider's CM and completion threads, and SPI callers holding endpoint locks) cannot
 * deadlock on it.
 */
public final class LoopbackNetwork {

    final Map<InetSocketAddress, LoopbackBackend.Id> bound = new HashMap<>();
    final Map<InetSocketAddress, LoopbackBackend.Id> listeners = new HashMap<>();
    final List<LoopbackBackend> backends = new ArrayList<>();
    /**
     * Holds back the passive side's ESTABLISHED (as when the active side's RTU is lost and the CM
     * retransmits): the connection works at the verbs level while the passive provider has not seen
     * the event yet. Guarded by this.
     */
    boolean holdPassiveEstablished;
    final List<Runnable> heldEvents = new ArrayList<>();
    private int nextPort = 40000;
    private int nextKey = 1;
    private long nextAddress = 0x7f10_0000_0000L;
    private int nextDevice = 1;
    private int nextQp = 1;

    /** Attaches a new device with address {@code ip} (one backend per provider) that behaves as DiSNI 2.0 shows it. */
    public LoopbackBackend attach(String ip) {
        return attach(ip, LoopbackBackend.AS_DISNI);
    }

    /**
     * Attaches a new device with address {@code ip} whose backend declares {@code features}: with
     * {@link VerbsBackend.Features#privateData()} it surfaces what rdma-core surfaces (private data,
     * IRD/ORD and reject status in CM events, rdma_reject).
     */
    public LoopbackBackend attach(String ip, VerbsBackend.Features features) {
        InetAddress address;
        try {
            address = InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(ip, e);
        }
        synchronized (this) {
            LoopbackBackend backend = new LoopbackBackend(this, address, nextDevice++, features);
            backends.add(backend);
            return backend;
        }
    }

    /** From now on, the passive side's ESTABLISHED waits for {@link #releaseHeldEvents()}. */
    public synchronized void holdPassiveEstablished() {
        holdPassiveEstablished = true;
    }

    /** Delivers the held events and stops holding. */
    public synchronized void releaseHeldEvents() {
        holdPassiveEstablished = false;
        for (Runnable r : heldEvents) {
            r.run();
        }
        heldEvents.clear();
        notifyAll();
    }

    synchronized LoopbackBackend backendAt(InetAddress address) {
        for (LoopbackBackend b : backends) {
            if (b.ip.equals(address) && !b.closed) {
                return b;
            }
        }
        return null;
    }

    /** Guarded by this. */
    int allocatePort() {
        return nextPort++;
    }

    /** An unguessable-looking, never reused, non-zero key (a bijection of a counter). Guarded by this. */
    int allocateKey() {
        return (nextKey++) * 0x9E3779B1;
    }

    /** A fresh virtual address range with an unmapped gap on each side. Guarded by this. */
    long allocateAddress(int length) {
        long address = nextAddress;
        nextAddress += ((length + 4095L) & ~4095L) + 4096L;
        return address;
    }

    int allocateQpNumber() {
        return nextQp++;
    }

    /** What is still allocated on the network's devices, one line per resource; empty when all was released. */
    public synchronized List<String> leaks() {
        List<String> out = new ArrayList<>();
        for (LoopbackBackend b : backends) {
            b.leaks(out);
        }
        return out;
    }

    /** @throws AssertionError listing {@link #leaks()} when it is not empty */
    public void assertNoLeaks() {
        List<String> leaks = leaks();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " loopback resource(s) not released:\n  " + String.join("\n  ", leaks));
        }
    }
}
