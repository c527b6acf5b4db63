package smbdirect.rdma.iwarp.internal;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import smbdirect.api.rdma.ConnectParameters;
import smbdirect.api.rdma.DisconnectCause;
import smbdirect.api.rdma.RdmaException;
import smbdirect.api.rdma.WorkRequestType;
import smbdirect.rdma.iwarp.IwarpSettings;
import smbdirect.rdma.iwarp.RtrMode;
import smbdirect.rdma.iwarp.internal.wire.MpaFrame;
import smbdirect.rdma.iwarp.internal.wire.MpaV2Control;
import smbdirect.rdma.iwarp.internal.wire.TerminateError;

/**
 * The initiator's side of MPA connection setup for one active {@link IwarpEndpoint} (RFC 5044
 * §7.1, RFC 6581 §5; iwarp.md §2.3, §7), the counterpart of {@link PassiveSetup}: opens the TCP
 * connection, writes the MPA Request (with the RFC 6581 word and the RTR frames offered when
 * {@code mpaRevision} is 2), reads the Reply exactly (never past it: what follows is RDMA mode)
 * within {@code mpaReplyTimeoutMillis}, TCP connect included, and lets {@link MpaNegotiation} judge
 * it. An agreed Reply hands the channel to the endpoint ({@link IwarpEndpoint#establish}); a refused
 * one ends it, with a Terminate on the raw socket where siw sends one. Once in RDMA mode it opens the
 * transmitter's gate (RFC 5044 §7.1.2: the initiator sends first), after
 * {@code firstFpduDelayMillis} when configured, and its RTR frame first when peer-to-peer was
 * negotiated.
 *
 * <p>Thread-safety: {@link #request} runs under the endpoint's lock on the caller's thread, and the
 * loop task the endpoint queues after it publishes those fields; everything else runs on the
 * endpoint's I/O thread. This is the channel's {@link IoHandler} from the TCP connect until the
 * Reply is accepted.
 */
final class ActiveSetup implements IoHandler {

    private static final Logger LOG = LoggerFactory.getLogger(ActiveSetup.class);

    /** Where the setup is. */
    private enum Phase {
        TCP_CONNECT, WRITE_REQUEST, READ_REPLY
    }

    private final IwarpEndpoint ep;
    private final IwarpDevice provider;
    private final IoLoop loop;
    private final IwarpSettings settings;
    private final Deadline replyTimeout = new Deadline(this::onReplyTimeout);
    private final Deadline firstFpduDelay = new Deadline(this::afterFirstFpduDelay);

    // the connect's parameters (endpoint lock, published by the loop task)
    private ByteBuffer privateData;
    private int requestIrd;
    private int requestOrd;

    // I/O thread
    private Channel channel;
    private ByteBuffer mpa;
    private boolean replyHeaderRead;
    private Phase phase = Phase.TCP_CONNECT;
    private int requestedIrdFlags;
    private int requestedOrdFlags;
    private RtrMode rtrMode = RtrMode.NONE;

    ActiveSetup(IwarpEndpoint ep) {
        this.ep = ep;
        this.provider = ep.provider;
        this.loop = ep.loop;
        this.settings = ep.settings;
    }

    /** {@code connect}: the ULP's private data must leave room for the RFC 6581 word in the 512 bytes of MPA. */
    static void checkPrivateData(IwarpSettings settings, ByteBuffer data) throws RdmaException {
        int max = MpaFrame.MAX_PRIVATE_DATA - (settings.mpaRevision() == 2 ? MpaV2Control.SIZE : 0);
        if (data.remaining() > max) {
            throw new RdmaException("connect: " + data.remaining() + " bytes of private data exceed " + max
                    + " (RFC 5044 §7.1: 512 bytes of MPA private data"
                    + (settings.mpaRevision() == 2 ? ", 4 of them the RFC 6581 IRD/ORD word)" : ")"));
        }
    }

    /** Endpoint lock held: keeps the connect's private data (a read-only copy) and read depths. */
    void request(ConnectParameters parameters) {
        ByteBuffer data = parameters.privateData();
        privateData = MpaSetup.readOnlyCopy(data, data.position(), data.remaining());
        requestIrd = Math.min(parameters.inboundReadDepth(), settings.maxReadDepth());
        requestOrd = Math.min(parameters.outboundReadDepth(), settings.maxReadDepth());
    }

    /** Loop task after {@code connect}: opens the TCP connection. */
    void start() {
        if (ep.state() != IwarpEndpoint.State.CONNECTING || !ep.isReceiving()) {
            provider.connectionClosed();
            return;
        }
        InetSocketAddress peer = ep.peerAddress();
        SocketChannel socket = null;
        try {
            socket = SocketChannel.open();
            provider.configure(socket);
            channel = new Channel(provider, loop, socket);
            ep.attach(channel);
            loop.arm(replyTimeout, TimeUnit.MILLISECONDS.toNanos(settings.mpaReplyTimeoutMillis()));
            boolean connected = socket.connect(peer);
            channel.register(this, connected ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT);
            if (connected) {
                onTcpConnected();
            }
        } catch (IOException | UnresolvedAddressException | SecurityException e) {
            if (channel == null) {
                closeQuietly(socket);
                provider.connectionClosed();
            }
            ep.end(connectFailureCause(e), "TCP connect to " + peer + " failed: " + e, null, null);
        }
    }

    private static DisconnectCause connectFailureCause(Exception e) {
        return e instanceof ConnectException || e instanceof NoRouteToHostException
                || e instanceof PortUnreachableException || e instanceof UnresolvedAddressException
                ? DisconnectCause.UNREACHABLE : DisconnectCause.CONNECT_ERROR;
    }

    private static void closeQuietly(SocketChannel socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing was registered yet
            }
        }
    }

    @Override
    public void onReady(SelectionKey key, int readyOps) {
        if (ep.state() != IwarpEndpoint.State.CONNECTING) {
            channel.interest(0);
            return;
        }
        try {
            if (phase == Phase.TCP_CONNECT && (readyOps & SelectionKey.OP_CONNECT) != 0) {
                if (channel.socket.finishConnect()) {
                    onTcpConnected();
                }
            } else if (phase == Phase.WRITE_REQUEST && (readyOps & SelectionKey.OP_WRITE) != 0) {
                writeRequest();
            } else if (phase == Phase.READ_REPLY && (readyOps & SelectionKey.OP_READ) != 0) {
                readReply();
            }
        } catch (IOException e) {
            if (ep.state() == IwarpEndpoint.State.CONNECTING && phase == Phase.TCP_CONNECT) {
                ep.end(connectFailureCause(e), "connection setup with " + ep.peerAddress() + " failed: " + e, null,
                        null);
            } else {
                ep.ioFailure(e);
            }
        }
    }

    @Override
    public void onCrash(Throwable failure) {
        ep.onCrash(failure);
    }

    /** The TCP connection is up: send the MPA Request (RFC 5044 §7.1, RFC 6581 §5). */
    private void onTcpConnected() throws IOException {
        ep.connectedFrom((InetSocketAddress) channel.socket.getLocalAddress());
        boolean enhanced = settings.mpaRevision() == 2;
        int irdFlags = 0;
        int ordFlags = 0;
        RtrMode p2p = settings.peerToPeer();
        if (enhanced && p2p != RtrMode.NONE) {
            irdFlags = MpaV2Control.PEER_TO_PEER;
            ordFlags = switch (p2p) {
                case WRITE -> MpaV2Control.WRITE_RTR;
                case READ -> MpaV2Control.READ_RTR;
                default -> MpaV2Control.WRITE_RTR | MpaV2Control.READ_RTR;
            };
            if ((ordFlags & MpaV2Control.READ_RTR) != 0) {
                requestOrd = Math.max(1, requestOrd); // the Read RTR takes an ORD slot (siw forces ORD >= 1)
            }
        }
        mpa = MpaSetup.frame(true, settings.crc() ? MpaFrame.FLAG_CRC : 0, settings.mpaRevision(), enhanced,
                requestIrd, requestOrd, irdFlags, ordFlags, privateData);
        requestedIrdFlags = irdFlags;
        requestedOrdFlags = ordFlags;
        phase = Phase.WRITE_REQUEST;
        writeRequest();
    }

    /** Writes the Request; then reads the Reply. */
    private void writeRequest() throws IOException {
        channel.socket.write(mpa);
        if (mpa.hasRemaining()) {
            channel.interest(SelectionKey.OP_WRITE);
            return;
        }
        phase = Phase.READ_REPLY;
        mpa = ByteBuffer.allocate(MpaFrame.HEADER_SIZE + MpaFrame.MAX_PRIVATE_DATA);
        mpa.limit(MpaFrame.HEADER_SIZE);
        channel.interest(SelectionKey.OP_READ);
    }

    /** Reads the Reply exactly (never past it: what follows is RDMA mode). */
    private void readReply() throws IOException {
        while (true) {
            int n = channel.socket.read(mpa);
            if (n < 0) {
                ep.end(DisconnectCause.CONNECT_ERROR, "the peer closed the connection before its MPA Reply was"
                        + " complete (RFC 5044 §7.1)", null, null);
                return;
            }
            if (mpa.hasRemaining()) {
                if (n == 0) {
                    return;
                }
                continue;
            }
            if (!replyHeaderRead) {
                if (MpaFrame.key(mpa, 0) != MpaFrame.Key.REPLY) {
                    ep.end(DisconnectCause.CONNECT_ERROR, "the peer's answer is not an MPA Reply (key "
                            + new String(mpa.array(), 0, 16, StandardCharsets.ISO_8859_1)
                            + "; RFC 5044 §7.1); sent Terminate " + TerminateError.MPA_INVALID_FRAME,
                            ep.termination.beforeRdmaMode(TerminateError.MPA_INVALID_FRAME), null);
                    return;
                }
                int pd = MpaFrame.pdLength(mpa, 0);
                if (pd > MpaFrame.MAX_PRIVATE_DATA) {
                    ep.end(DisconnectCause.CONNECT_ERROR, "MPA Reply PD_Length " + pd + " exceeds "
                            + MpaFrame.MAX_PRIVATE_DATA + " (RFC 5044 §7.1)", null, null);
                    return;
                }
                replyHeaderRead = true;
                mpa.limit(MpaFrame.HEADER_SIZE + pd);
                if (mpa.hasRemaining()) {
                    continue;
                }
            }
            processReply();
            return;
        }
    }

    /** The complete Reply (RFC 5044 §7.1, RFC 6581 §5; iwarp.md §2.4, §7). */
    private void processReply() {
        MpaNegotiation.Result result = MpaNegotiation.reply(mpa, settings, requestIrd, requestOrd, requestedIrdFlags,
                requestedOrdFlags);
        if (result instanceof MpaNegotiation.Refused r) {
            ep.end(r.cause(), r.detail(), r.terminate() == null ? null
                    : ep.termination.beforeRdmaMode(r.terminate()), r.rejectData());
            return;
        }
        MpaNegotiation.Agreed a = (MpaNegotiation.Agreed) result;
        if (!a.enhanced() && settings.mpaRevision() == 2 && LOG.isDebugEnabled()) {
            LOG.debug("{}: the peer answered MPA revision {} without the RFC 6581 word; IRD/ORD come from the ULP",
                    ep, MpaFrame.revision(mpa, 0));
        }
        loop.disarm(replyTimeout);
        mpa = null;
        channel.owner(ep);
        ep.establish(a.crc(), a.ird(), a.ord(), a.rtr(), a.ulpPrivateData());
    }

    /**
     * The endpoint is in RDMA mode: the initiator may send (RFC 5044 §7.1.2), at once or after
     * {@code firstFpduDelayMillis} (siw 6.1's accept race, iwarp.md §7).
     */
    void established(RtrMode rtr) {
        rtrMode = rtr;
        if (settings.firstFpduDelayMillis() > 0) {
            loop.arm(firstFpduDelay, TimeUnit.MILLISECONDS.toNanos(settings.firstFpduDelayMillis()));
        } else {
            openGate();
        }
    }

    /** Opens the transmitter's gate: the RTR frame first when peer-to-peer was negotiated (RFC 6581 §5). */
    private void openGate() {
        if (!ep.isReceiving()) {
            return;
        }
        Transmitter tx = ep.transmitter();
        tx.openGate();
        if (rtrMode == RtrMode.WRITE) {
            tx.queueWriteRtr();
        } else if (rtrMode == RtrMode.READ) {
            SendWr read = new SendWr();
            read.type = WorkRequestType.RDMA_READ;
            read.internal = true;
            tx.queueReadRtr(read);
        }
    }

    private void afterFirstFpduDelay() {
        openGate();
        ep.runScheduled();
    }

    private void onReplyTimeout() {
        if (ep.state() == IwarpEndpoint.State.CONNECTING) {
            ep.end(DisconnectCause.CONNECT_ERROR, "no MPA Reply from " + ep.peerAddress() + " within "
                    + settings.mpaReplyTimeoutMillis() + " ms (RFC 5044 §7.1)", null, null);
        }
    }

    /** The endpoint ends or is closed: its timers stop. */
    void stop() {
        loop.disarm(replyTimeout);
        loop.disarm(firstFpduDelay);
    }
}
