package smbdirect.bench;

import java.net.InetSocketAddress;

import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.mock.DeliveryMode;
import smbdirect.rdma.mock.MockFabric;
import smbdirect.rdma.mock.MockProvider;
import smbdirect.rdma.tck.EchoPair;

/**
 * The floor of the mock: two endpoints of one fabric connected through the provider SPI with no
 * protocol on top ({@link EchoPair}). Each side registers one receive region of {@code receives}
 * slots of {@code receiveSize} bytes and one send region of {@code sendRegionSize} bytes of a
 * pattern; optionally the server answers every message with a Send of {@code echoLength} bytes
 * (ping-pong). Closing disconnects and closes the fabric.
 *
 * <p>Not thread-safe for senders: one benchmark thread sends on the client; the handlers run on
 * the fabric's threads (or inline).
 */
final class RawPair implements AutoCloseable {

    static final int PORT = 445;

    final MockFabric fabric;
    final EchoPair.Side client;
    final EchoPair.Side server;
    private final EchoPair pair;

    RawPair(DeliveryMode mode, int receiveSize, int receives, int sendRegionSize, int echoLength)
            throws RdmaException, InterruptedException {
        fabric = MockFabric.builder().name("raw-" + mode.name().toLowerCase()).mode(mode).build();
        MockProvider serverDevice = fabric.provider("server");
        MockProvider clientDevice = fabric.provider("client");
        try {
            pair = EchoPair.builder().receives(receives, receiveSize).sendMemory(() -> Buffers.pattern(sendRegionSize))
                    .echo(echoLength).endpointSettings(new EndpointSettings(receives + 1, receives + 1))
                    .connect(clientDevice, serverDevice, new InetSocketAddress(serverDevice.address(), PORT));
        } catch (RdmaException | InterruptedException | RuntimeException e) {
            fabric.close();
            throw e;
        }
        client = pair.client;
        server = pair.server;
    }

    @Override
    public void close() {
        try {
            pair.close();
        } finally {
            fabric.close();
        }
    }
}
