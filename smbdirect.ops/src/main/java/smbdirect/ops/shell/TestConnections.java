package smbdirect.ops.shell;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.ListenerDTO;
import smbdirect.api.dto.TransportDTO;

/**
 * Connections opened by an operator (Gogo {@code smbd:connect}, the Web Console's "Open test
 * connection") to check a listener end to end. They negotiate like any connection, discard what
 * they receive, stay open until closed, and can be closed by id.
 *
 * <p>Thread-safe.
 */
@Component(service = TestConnections.class, immediate = true)
public class TestConnections {

    private static final Logger LOG = LoggerFactory.getLogger(TestConnections.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Map<Long, SmbDirectConnection> open = new ConcurrentHashMap<>();

    @Reference
    private SmbDirectTransport transport;

    /** Opens a test connection to {@code peer}, or to the first open listener when {@code null}. */
    public CompletionStage<SmbDirectConnection> open(InetSocketAddress peer) {
        InetSocketAddress target = peer != null ? peer : defaultTarget();
        ConnectionHandler handler = new ConnectionHandler() {
            @Override
            public void onMessage(SmbDirectConnection c, ReceivedMessage message) {
                LOG.debug("test connection {} discarded a message of {} bytes", c.id(), message.length());
            }

            @Override
            public void onDisconnected(SmbDirectConnection c, CloseReason reason) {
                open.remove(c.id());
            }
        };
        return transport.connect(target, TIMEOUT, handler).thenApply(c -> {
            if (c.isOpen()) {
                open.put(c.id(), c);
            }
            LOG.info("test connection {} opened to {}", c.id(), target);
            return c;
        });
    }

    /** Whether {@code id} is a test connection that is still open. */
    public boolean owns(long id) {
        return open.containsKey(id);
    }

    /**
     * Closes test connection {@code id}.
     *
     * @return the close stage, or {@code null} when {@code id} is no open test connection
     */
    public CompletionStage<Void> close(long id) {
        SmbDirectConnection c = open.remove(id);
        return c == null ? null : c.close();
    }

    /**
     * The address of the first open listener (wildcard addresses become the loopback address).
     *
     * @throws IllegalStateException when no listener is open
     */
    public InetSocketAddress defaultTarget() {
        TransportDTO dto = transport.getTransportDTO();
        if (dto.listeners != null) {
            for (ListenerDTO l : dto.listeners) {
                if ("OPEN".equals(l.state) && l.address != null) {
                    return toAddress(l.address);
                }
            }
        }
        throw new IllegalStateException("no open listener to connect to (configure one: factory PID smbdirect.listener)");
    }

    static InetSocketAddress toAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon);
        if (host.startsWith("/")) {
            host = host.substring(1);
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = Integer.parseInt(hostPort.substring(colon + 1));
        try {
            InetAddress address = InetAddress.getByName(host);
            if (address.isAnyLocalAddress()) {
                address = InetAddress.getLoopbackAddress();
            }
            return new InetSocketAddress(address, port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("listener address " + hostPort + " cannot be resolved", e);
        }
    }

    @Deactivate
    void deactivate() {
        for (Long id : open.keySet()) {
            CompletionStage<Void> c = close(id);
            if (c != null) {
                LOG.debug("closing test connection {}", id);
            }
        }
    }
}
