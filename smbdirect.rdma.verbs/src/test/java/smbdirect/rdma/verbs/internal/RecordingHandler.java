package smbdirect.rdma.verbs.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.WorkCompletion;
import smbdirect.api.rdma.WorkRequestType;

/** Records endpoint callbacks (copying the flyweight) and checks the callback rules as they happen. */
final class RecordingHandler implements RdmaEndpointHandler {

    record Completion(long wrId, WorkRequestType type, CompletionStatus status, int byteLength,
            boolean hasInvalidatedToken, int invalidatedToken, int vendorError) {
    }

    final List<Object> events = new ArrayList<>();
    final List<Completion> completions = new ArrayList<>();
    final List<WorkCompletion> flyweights = new ArrayList<>();
    int established;
    /** The private data of the last onEstablished / onDisconnected. */
    byte[] establishedData;
    byte[] disconnectData;
    DisconnectCause cause;
    String detail;
    int disconnects;
    /** A callback after onDisconnected, or a nested one, breaks the SPI rules. */
    final List<String> violations = new ArrayList<>();
    private boolean inCallback;
    Runnable onCompletionAction;

    private void enter(String what) {
        if (inCallback) {
            violations.add("concurrent/nested callback " + what);
        }
        if (disconnects > 0) {
            violations.add(what + " after onDisconnected");
        }
        inCallback = true;
    }

    @Override
    public void onEstablished(ByteBuffer peerPrivateData) {
        enter("onEstablished");
        established++;
        establishedData = bytes(peerPrivateData);
        events.add("established");
        inCallback = false;
    }

    @Override
    public void onCompletion(WorkCompletion c) {
        enter("onCompletion");
        Completion copy = new Completion(c.wrId(), c.type(), c.status(), c.byteLength(), c.hasInvalidatedToken(),
                c.invalidatedToken(), c.vendorError());
        completions.add(copy);
        flyweights.add(c);
        events.add(copy);
        inCallback = false;
        if (onCompletionAction != null) {
            onCompletionAction.run();
        }
    }

    @Override
    public void onDisconnected(DisconnectCause cause, String detail, ByteBuffer privateData) {
        enter("onDisconnected");
        this.cause = cause;
        this.detail = detail;
        disconnectData = bytes(privateData);
        disconnects++;
        events.add("disconnected:" + cause);
        inCallback = false;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
