package smbdirect.dist;

import org.osgi.service.component.annotations.Component;

import smbdirect.api.AcceptHandler;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.SmbDirectConnection;
import smbdirect.perf.PerfServer;

/**
 * The runtime's default accept handler: the perf server end (counts, echoes and streams perf
 * messages, sinks anything else). Selected by the default listener through
 * {@code acceptHandler.target=(smbdirect.acceptHandler=perf)}. Thread-safe.
 */
@Component(service = AcceptHandler.class, property = PerfAcceptHandler.NAME_PROPERTY + "=" + PerfAcceptHandler.NAME)
public class PerfAcceptHandler implements AcceptHandler {

    /** Service property naming an accept handler. */
    public static final String NAME_PROPERTY = "smbdirect.acceptHandler";
    /** This handler's name. */
    public static final String NAME = "perf";

    private final PerfServer server = new PerfServer();

    @Override
    public ConnectionHandler accepted(SmbDirectConnection connection) {
        return server.accepted(connection);
    }
}
