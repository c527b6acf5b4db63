package smbdirect.rdma.mock;

import java.net.InetAddress;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import smbdirect.api.rdma.RdmaCapabilities;
import smbdirect.api.rdma.RdmaProvider;

/**
 * A simulated RDMA device of a {@link MockFabric} with one IP address, plus its fault controls.
 * Thread-safe. Endpoints it creates are {@link MockEndpoint}s.
 */
@ProviderType
public interface MockProvider extends RdmaProvider {

    /** The device's IP address (listeners bind to it or to the wildcard address). */
    InetAddress address();

    /**
     * Replaces the capabilities (e.g. shrinks them). Applies to endpoints created afterwards;
     * existing endpoints keep theirs.
     */
    void setCapabilities(RdmaCapabilities capabilities);

    /** The next {@code count} registrations on endpoints of this device fail with RdmaException. */
    void failNextRegistrations(int count);

    /**
     * Every connection request to a listener of this device is rejected by the device with
     * {@code privateData} (may be empty) before the listener's handler sees it, until
     * {@link #acceptConnections()}.
     */
    void refuseConnections(byte[] privateData);

    /** Ends {@link #refuseConnections(byte[])}. */
    void acceptConnections();

    /**
     * Simulates device removal: every live endpoint of this device is flushed and gets
     * {@link smbdirect.api.rdma.DisconnectCause#DEVICE_REMOVED}; every listener gets
     * {@code onListenerFailed(DEVICE_REMOVED)}; listen, createEndpoint and register throw until
     * {@link #restoreDevice()}. Peers on other devices get no message: they notice on their next
     * Send or RDMA operation ({@code TRANSPORT_RETRY_EXCEEDED}, then
     * {@link smbdirect.api.rdma.DisconnectCause#PEER_LOST}).
     */
    void removeDevice();

    /** Makes a removed device usable again (new listeners and endpoints). */
    void restoreDevice();

    /** Whether {@link #removeDevice()} is in effect. */
    boolean isDeviceRemoved();

    /** The live endpoints of this device. */
    List<MockEndpoint> endpoints();
}
