package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.EndpointSettings;
import smbdirect.api.rdma.RdmaConnectRequest;
import smbdirect.api.rdma.RdmaEndpoint;
import smbdirect.api.rdma.RdmaEndpointHandler;
import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.iwarp.RtrMode;
import smbdirect.rdma.iwarp.internal.wire.MpaFrame;
import smbdirect.rdma.iwarp.internal.wire.MpaV2Control;

/**
 * The responder's side of MPA connection setup on an accepted TCP connection (RFC 5044 §7.1,
 * RFC 6581 §5; iwarp.md §2.4, §7): reads the MPA Request within the request timeout (siw: 5 s),
 * refuses what it cannot serve with a Reply with R=1 (markers, revision above 2, private data above
 * 512 bytes, an enhanced Request without the IRD/ORD word, bytes sent before our Reply), and hands a
 * good Request to the listener's handler as the {@link RdmaConnectRequest}. Reading stops while the
 * consumer decides. A reject sends a Reply with R=1 and the consumer's private data; an accept
 * negotiates as iwarp.md §7 (responder) says ({@link MpaNegotiation#answer}), writes the Reply, and
 * hands the connection to the {@link IwarpEndpoint} created from the request, which enters RDMA
 * mode. The counterpart of {@link ActiveSetup}.
 *
 * <p>Thread-safety: the Request fields are written on the I/O thread before the request is handed
 * to the listener (the hand-off publishes them) and never change after; the decision and the
 * accept's parameters are guarded by {@code this}. This is the channel's {@link IoHandler} until
 * the Reply is written (or the connection is dropped or refused).
 */
final class PassiveSetup implements IoHandler, RdmaConnectRequest {

    private static final Logger LOG = LoggerFactory.getLogger(PassiveSetup.class);

    private final IwarpDevice provider;
    private final IwarpListener listener;
    private final Channel channel;
    private final IoLoop loop;
    private final InetSocketAddress local;
    private final InetSocketAddress peer;
    private final ByteBuffer frame = ByteBuffer.allocate(MpaFrame.HEADER_SIZE + MpaFrame.MAX_PRIVATE_DATA);
    private final ByteBuffer probe = ByteBuffer.allocate(1);
    /** What {@code onEstablished} gets here: the peer's private data came with its Request. */
    private final ByteBuffer noPrivateData = ByteBuffer.allocate(0).asReadOnlyBuffer();
    private final Deadline timeout = new Deadline(this::onTimeout);
    private boolean headerRead;
    private boolean delivered;
    /** This setup holds a unit of the provider's pending-connection cap (until the Request is complete or it ends). */
    private boolean pending = true;

    // the Request, fixed once delivered
    private int flags;
    private int revision;
    private boolean enhanced;
    private int peerIrd;
    private int peerOrd;
    private int peerIrdFlags;
    private int peerOrdFlags;
    private ByteBuffer privateData;

    // guarded by this
    private IwarpEndpoint endpoint;
    private boolean decided;
    private ByteBuffer replyData;
    private int replyIrd;
    private int replyOrd;

    // I/O thread: the accepted endpoint while its Reply is written, and the Reply
    private IwarpEndpoint accepting;
    private ByteBuffer reply;
    private MpaNegotiation.Answer answer;

    PassiveSetup(IwarpDevice provider, IwarpListener listener, Channel channel, InetSocketAddress local,
            InetSocketAddress peer) {
        this.provider = provider;
        this.listener = listener;
        this.channel = channel;
        this.loop = channel.loop;
        this.local = local;
        this.peer = peer;
    }

    /** I/O thread: starts reading the Request. */
    void start() {
        if (!provider.trackSetup(this)) {
            releasePending();
            channel.closeNow();
            return;
        }
        try {
            channel.register(this, SelectionKey.OP_READ);
        } catch (IOException e) {
            drop("registering the accepted connection failed: " + e);
            return;
        }
        frame.limit(MpaFrame.HEADER_SIZE);
        loop.arm(timeout, TimeUnit.MILLISECONDS.toNanos(provider.settings().mpaRequestTimeoutMillis()));
    }

    Channel channel() {
        return channel;
    }

    boolean enhanced() {
        return enhanced;
    }

    int revision() {
        return revision;
    }

    boolean crcRequested() {
        return (flags & MpaFrame.FLAG_CRC) != 0;
    }

    int peerIrdFlags() {
        return peerIrdFlags;
    }

    int peerOrdFlags() {
        return peerOrdFlags;
    }

    @Override
    public void onReady(SelectionKey key, int readyOps) {
        if (accepting != null) {
            replyReady(readyOps);
            return;
        }
        try {
            readRequest();
        } catch (IOException e) {
            drop("reading the MPA Request failed: " + e);
        }
    }

    @Override
    public void onCrash(Throwable failure) {
        if (accepting != null) {
            accepting.onCrash(failure);
            return;
        }
        LOG.error("MPA Request from {}: internal error", peer, failure);
        drop("internal error: " + failure);
    }

    private void readRequest() throws IOException {
        while (!delivered) {
            int n = channel.socket.read(frame);
            if (n < 0) {
                drop("the peer closed the connection before its MPA Request was complete");
                return;
            }
            if (frame.hasRemaining()) {
                if (n == 0) {
                    return;
                }
                continue;
            }
            if (!headerRead) {
                if (MpaFrame.key(frame, 0) != MpaFrame.Key.REQUEST) {
                    drop("the first 16 bytes are not the MPA Request key (RFC 5044 §7.1)");
                    return;
                }
                flags = MpaFrame.flags(frame, 0);
                revision = MpaFrame.revision(frame, 0);
                int pd = MpaFrame.pdLength(frame, 0);
                if (revision > MpaFrame.REVISION_2) {
                    refuse("MPA revision " + revision + " (this provider speaks 1 and 2)");
                    return;
                }
                if (pd > MpaFrame.MAX_PRIVATE_DATA) {
                    refuse("PD_Length " + pd + " exceeds " + MpaFrame.MAX_PRIVATE_DATA + " (RFC 5044 §7.1)");
                    return;
                }
                headerRead = true;
                frame.limit(MpaFrame.HEADER_SIZE + pd);
                if (frame.hasRemaining()) {
                    continue;
                }
            }
            requestComplete();
            return;
        }
    }

    private void requestComplete() throws IOException {
        int pd = MpaFrame.pdLength(frame, 0);
        enhanced = revision == MpaFrame.REVISION_2 && (flags & MpaFrame.FLAG_ENHANCED) != 0;
        if (enhanced && pd < MpaV2Control.SIZE) {
            refuse("an enhanced (RFC 6581) Request with " + pd + " bytes of private data, no IRD/ORD word");
            return;
        }
        if ((flags & MpaFrame.FLAG_MARKERS) != 0) {
            refuse("the peer asks for MPA markers (RFC 5044 §5), which this provider does not insert (nor does siw)");
            return;
        }
        probe.clear();
        int extra = channel.socket.read(probe);
        if (extra > 0) {
            refuse("the initiator sent data after its MPA Request before our Reply (RFC 5044 §7.1: it must wait)");
            return;
        }
        if (extra < 0) {
            drop("the peer closed the connection after its MPA Request");
            return;
        }
        int ulpStart = MpaFrame.HEADER_SIZE;
        if (enhanced) {
            peerIrd = MpaV2Control.ird(frame, MpaFrame.HEADER_SIZE);
            peerOrd = MpaV2Control.ord(frame, MpaFrame.HEADER_SIZE);
            peerIrdFlags = MpaV2Control.irdFlags(frame, MpaFrame.HEADER_SIZE);
            peerOrdFlags = MpaV2Control.ordFlags(frame, MpaFrame.HEADER_SIZE);
            ulpStart += MpaV2Control.SIZE;
        }
        privateData = MpaSetup.readOnlyCopy(frame, ulpStart, MpaFrame.HEADER_SIZE + pd - ulpStart);
        loop.disarm(timeout);
        releasePending();
        channel.interest(0);
        delivered = true;
        if (LOG.isDebugEnabled()) {
            LOG.debug("MPA Request from {}: revision {}, flags {}, IRD {}, ORD {}, {} bytes of ULP private data",
                    peer, revision, MpaFrame.describeFlags(flags), peerIrd, peerOrd, privateData.remaining());
        }
        listener.deliver(this);
    }

    /** I/O thread: gives back the unit of the pending-connection cap, once. */
    private void releasePending() {
        if (pending) {
            pending = false;
            provider.handshakeEnded();
        }
    }

    private void onTimeout() {
        if (!delivered) {
            drop("no MPA Request within " + provider.settings().mpaRequestTimeoutMillis() + " ms");
        }
    }

    /** Closes without a Reply (what arrived is not an MPA Request, or the peer is gone). */
    private void drop(String reason) {
        LOG.debug("connection from {} dropped: {}", peer, reason);
        loop.disarm(timeout);
        releasePending();
        delivered = true;
        provider.forgetSetup(this);
        channel.closeNow();
    }

    /** A Reply with R=1 for a Request this provider cannot serve (iwarp.md §2.4 as siw does it). */
    private void refuse(String reason) {
        LOG.debug("MPA Request from {} refused: {}", peer, reason);
        loop.disarm(timeout);
        releasePending();
        delivered = true;
        synchronized (this) {
            decided = true;
        }
        sendReject(null);
    }

    /** Loop thread: the Reply with R=1, then a graceful close. */
    private void sendReject(ByteBuffer data) {
        provider.forgetSetup(this);
        int replyRevision = Math.min(Math.max(revision, MpaFrame.REVISION_1), MpaFrame.REVISION_2);
        int replyFlags = MpaFrame.FLAG_REJECT | (flags & MpaFrame.FLAG_CRC);
        ByteBuffer reply = MpaSetup.frame(false, replyFlags, replyRevision, enhanced && revision == 2, 0, 0, 0, 0,
                data);
        channel.owner(null);
        channel.closeGracefully(new ByteBuffer[] {reply}, 0, 1);
    }

    /** Listener loop: the listener is closed; the request is refused without involving the consumer. */
    void rejectUnseen() {
        synchronized (this) {
            if (decided) {
                return;
            }
            decided = true;
        }
        loop.execute(() -> sendReject(null));
    }

    /** Provider shutdown (loop thread): closes the connection of an undecided request. */
    void shutdown() {
        synchronized (this) {
            decided = true;
        }
        loop.disarm(timeout);
        releasePending();
        channel.closeNow();
    }

    // ------------------------------------------------------------------ RdmaConnectRequest

    @Override
    public InetSocketAddress peerAddress() {
        return peer;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public ByteBuffer privateData() {
        return privateData.duplicate();
    }

    @Override
    public int peerInboundReadDepth() {
        return enhanced ? peerIrd : 0;
    }

    @Override
    public int peerOutboundReadDepth() {
        return enhanced ? peerOrd : 0;
    }

    @Override
    public RdmaEndpoint createEndpoint(EndpointSettings config, RdmaEndpointHandler handler) throws RdmaException {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(handler, "handler");
        provider.checkOpen("createEndpoint");
        provider.checkConfig(config);
        IwarpEndpoint ep;
        synchronized (this) {
            if (decided) {
                throw new RdmaException("createEndpoint: the connection request from " + peer
                        + " was already rejected or accepted");
            }
            if (endpoint != null) {
                throw new RdmaException("createEndpoint: an endpoint was already created from the request from "
                        + peer);
            }
            ep = new IwarpEndpoint(provider, loop, config, handler, this);
            endpoint = ep;
        }
        provider.track(ep);
        return ep;
    }

    @Override
    public void reject(ByteBuffer data) {
        int max = MpaFrame.MAX_PRIVATE_DATA - (enhanced ? MpaV2Control.SIZE : 0);
        ByteBuffer copy = null;
        if (data != null && data.hasRemaining()) {
            int length = Math.min(data.remaining(), max);
            if (length < data.remaining()) {
                LOG.warn("reject of the request from {}: private data cut from {} to {} bytes (RFC 5044 §7.1)", peer,
                        data.remaining(), length);
            }
            copy = MpaSetup.readOnlyCopy(data, data.position(), length);
        }
        IwarpEndpoint ep;
        synchronized (this) {
            if (decided) {
                return;
            }
            decided = true;
            ep = endpoint;
        }
        if (ep != null) {
            ep.requestRejected();
        }
        ByteBuffer send = copy;
        loop.execute(() -> sendReject(send));
    }

    /** The endpoint created from the request is being accepted; false when the request was rejected already. */
    synchronized boolean decideAccept() {
        if (decided) {
            return false;
        }
        decided = true;
        loop.execute(() -> provider.forgetSetup(this));
        return true;
    }

    /** {@code accept}: the ULP's private data must leave room for the RFC 6581 word in the 512 bytes of MPA. */
    void checkPrivateData(ByteBuffer data) throws RdmaException {
        int max = MpaFrame.MAX_PRIVATE_DATA - (enhanced ? MpaV2Control.SIZE : 0);
        if (data.remaining() > max) {
            throw new RdmaException("accept: " + data.remaining() + " bytes of private data exceed " + max
                    + " (RFC 5044 §7.1)");
        }
    }

    /** After {@link #decideAccept}: keeps the accept's private data (a read-only copy) and read depths. */
    synchronized void accepted(ConnectParameters parameters) {
        ByteBuffer data = parameters.privateData();
        int maxReadDepth = provider.settings().maxReadDepth();
        replyData = MpaSetup.readOnlyCopy(data, data.position(), data.remaining());
        replyIrd = Math.min(parameters.inboundReadDepth(), maxReadDepth);
        replyOrd = Math.min(parameters.outboundReadDepth(), maxReadDepth);
    }

    /** Loop thread, {@code ep} accepting: negotiates as iwarp.md §7 (responder) says and writes the Reply. */
    void sendReply(IwarpEndpoint ep) {
        ByteBuffer data;
        int ird;
        int ord;
        synchronized (this) {
            data = replyData;
            ird = replyIrd;
            ord = replyOrd;
        }
        accepting = ep;
        answer = MpaNegotiation.answer(this, provider.settings(), ird, ord);
        reply = MpaSetup.frame(false, answer.crc() ? MpaFrame.FLAG_CRC : 0, answer.revision(), answer.enhanced(),
                answer.ird(), answer.ord(), answer.irdFlags(), answer.ordFlags(), data);
        try {
            writeReply();
        } catch (IOException e) {
            ep.end(DisconnectCause.CONNECT_ERROR, "writing the MPA Reply to " + peer + " failed: " + e, null, null);
        }
    }

    private void replyReady(int readyOps) {
        if (accepting.state() != IwarpEndpoint.State.ACCEPTING) {
            channel.interest(0);
            return;
        }
        try {
            if ((readyOps & SelectionKey.OP_WRITE) != 0) {
                writeReply();
            }
        } catch (IOException e) {
            accepting.ioFailure(e);
        }
    }

    /** Writes the Reply; once it is out, the endpoint owns the channel and enters RDMA mode. */
    private void writeReply() throws IOException {
        channel.socket.write(reply);
        if (reply.hasRemaining()) {
            channel.interest(SelectionKey.OP_WRITE);
            return;
        }
        reply = null;
        channel.owner(accepting);
        accepting.establish(answer.crc(), answer.ird(), answer.ord(), RtrMode.NONE, noPrivateData);
    }

    /** The endpoint created from the request was closed before accept or reject: the request is refused. */
    void releaseByClose() {
        synchronized (this) {
            if (decided) {
                return;
            }
            decided = true;
        }
        loop.execute(() -> sendReject(null));
    }

    @Override
    public String toString() {
        return "ConnectRequest[" + peer + " -> " + local + "]";
    }
}
