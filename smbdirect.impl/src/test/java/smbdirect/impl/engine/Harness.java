package smbdirect.impl.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import smbdirect.api.CloseReason;
import smbdirect.api.ConnectionHandler;
import smbdirect.api.ReceivedMessage;
import smbdirect.api.SmbDirectConnection;
import smbdirect.api.SmbDirectListener;
import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.NegotiateRequest;
import smbdirect.impl.wire.NegotiateResponse;
import smbdirect.impl.wire.SmbdWire;

/** An engine over the scripted provider in virtual time, with message builders for the peer's side. */
final class Harness {

    static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 445);

    final FakeProvider provider = new FakeProvider();
    final ManualScheduler scheduler = new ManualScheduler();
    final SmbDirectEngine engine;
    final Recorder recorder = new Recorder();

    Harness() {
        this(TransportSettings.DEFAULTS);
    }

    Harness(TransportSettings settings) {
        engine = new SmbDirectEngine(provider, settings, scheduler);
    }

    /** Records messages (copied) and disconnects. */
    static final class Recorder implements ConnectionHandler {
        final List<byte[]> messages = new ArrayList<>();
        final List<Integer> tokens = new ArrayList<>();
        final List<CloseReason> disconnects = new ArrayList<>();
        final List<Boolean> zeroCopy = new ArrayList<>();

        @Override
        public void onMessage(SmbDirectConnection connection, ReceivedMessage message) {
            ByteBuffer p = message.payload();
            assertEquals(message.length(), p.remaining());
            byte[] b = new byte[p.remaining()];
            p.duplicate().get(b);
            messages.add(b);
            tokens.add(message.hasInvalidatedToken() ? message.invalidatedToken() : null);
            zeroCopy.add(p.isDirect());
        }

        @Override
        public void onDisconnected(SmbDirectConnection connection, CloseReason reason) {
            disconnects.add(reason);
        }
    }

    // ---- message builders (the peer's side) ----

    static ByteBuffer negRequest(int min, int max, int credits, long pref, long maxRecv, long maxFrag) {
        ByteBuffer b = le(SmbdWire.NEGOTIATE_REQUEST_SIZE);
        NegotiateRequest.encode(b, 0, min, max, credits, pref, maxRecv, maxFrag);
        return b;
    }

    static ByteBuffer negResponse(int credReq, int credGranted, int status, long maxRw, long pref, long maxRecv,
            long maxFrag) {
        ByteBuffer b = le(SmbdWire.NEGOTIATE_RESPONSE_SIZE);
        NegotiateResponse.encode(b, 0, 0x100, 0x100, 0x100, credReq, credGranted, status, maxRw, pref, maxRecv,
                maxFrag);
        return b;
    }

    static ByteBuffer dt(int credReq, int granted, int flags, long remaining, byte[] payload) {
        int len = payload.length == 0 ? 20 : 24 + payload.length;
        ByteBuffer b = le(len);
        int h = DataTransfer.encodeHeader(b, 0, credReq, granted, flags, remaining, payload.length == 0 ? 0 : 24,
                payload.length);
        b.put(h, payload);
        return b;
    }

    static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    // ---- establishment ----

    CompletionStage<SmbDirectConnection> connect() {
        return engine.connect(PEER, Duration.ofSeconds(120), recorder);
    }

    /**
     * Connects and negotiates as ACTIVE against a scripted peer answering with the given values.
     */
    Connection active(int peerCredReq, int peerGranted, long peerPref, long peerMaxRecv, long peerMaxFrag) {
        CompletableFuture<SmbDirectConnection> f = connect().toCompletableFuture();
        FakeEndpoint e = provider.last();
        e.establish();
        e.completeSends();
        e.deliver(negResponse(peerCredReq, peerGranted, 0, 8 << 20, peerPref, peerMaxRecv, peerMaxFrag));
        assertTrue(f.isDone(), "negotiated");
        return (Connection) f.join();
    }

    Connection active() {
        return active(255, 255, 1364, 8192, 1 << 20);
    }

    /** Accepted connections (passive). */
    final List<SmbDirectConnection> accepted = new ArrayList<>();
    SmbDirectListener listener;

    FakeProvider.FakeRequest request(ByteBuffer privateData) {
        if (listener == null) {
            try {
                listener = engine.listen(new InetSocketAddress("127.0.0.1", 445), c -> {
                    accepted.add(c);
                    return recorder;
                });
            } catch (Exception ex) {
                throw new AssertionError(ex);
            }
        }
        FakeProvider.FakeRequest r = provider.new FakeRequest(PEER, privateData, 8, 8);
        provider.listeners.get(provider.listeners.size() - 1).handler.onConnectRequest(r);
        return r;
    }

    /** A passive connection negotiated with the given request values. */
    Connection passive(int credits, long pref, long maxRecv, long maxFrag) {
        FakeProvider.FakeRequest r = request(null);
        FakeEndpoint e = r.endpoint;
        e.establish();
        e.deliver(negRequest(0x100, 0x100, credits, pref, maxRecv, maxFrag));
        e.completeSends();
        return (Connection) accepted.get(accepted.size() - 1);
    }
}
