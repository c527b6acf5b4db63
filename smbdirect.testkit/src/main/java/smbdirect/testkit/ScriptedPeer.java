package smbdirect.testkit;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;

import smbdirect.api.BufferDescriptor;
import smbdirect.api.RemoteAccess;
import smbdirect.api.rdma.CompletionStatus;
import smbdirect.api.rdma.MemoryAccess;
import smbdirect.api.rdma.RdmaException;
import smbdirect.rdma.mock.RawCompletion;
import smbdirect.rdma.mock.RawMessage;
import smbdirect.rdma.mock.RawPeer;

/**
 * The far end of one SMB Direct connection over the mock fabric, scripted by a test: a correct
 * [MS-SMBD] peer in either role by default, misbehaving in one chosen way on demand.
 *
 * <p>What it does by itself, on every {@link VirtualClock#settle()}:
 * <ul>
 * <li>Negotiation: as the active peer it sends the Negotiate Request once connected and checks the
 * response (3.1.5.2, 3.1.5.7); as the passive peer it checks the request and answers (3.1.5.6).</li>
 * <li>Credits: it posts {@link #receiveCredits} receives, grants the transport only receives it has
 * posted and not yet granted (3.1.5.9), up to the transport's CreditsRequested, topping up when the
 * transport holds half of that or less; it spends one Send Credit per message and its last one
 * only together with a grant (the last-credit rule, 3.1.5.1); with no credit it waits.</li>
 * <li>Fragmentation and reassembly: messages given to {@link #send(byte[])} go out in fragments of
 * the negotiated MaxSendSize with RemainingDataLength counting down (3.1.5.4); fragments received
 * are reassembled into messages (3.1.5.8).</li>
 * <li>Keepalive replies: a message with SMB_DIRECT_RESPONSE_REQUESTED is answered promptly.</li>
 * <li>Checks: every message received is checked against the receiver's rules of [MS-SMBD]
 * (3.1.5.6 to 3.1.5.8) by the kit's own codec, which shares nothing with the engine's, and the
 * fragments of a message must count down exactly (an empty message between them included); a
 * violation is recorded ({@link #violations()}) and the peer disconnects, as a correct peer
 * would.</li>
 * </ul>
 *
 * <p>Misbehaviour: a {@link Hook} sees every message before it goes out and may change any field
 * or drop it ({@link Frame} has a typed getter and setter for every field of each message);
 * {@link #withholdCredits}, {@link #floodCredits}, {@link #stall}, {@link #disconnect},
 * {@link #crash}, {@link #sendWithInvalidate}, {@link #sendWithoutCredit}, {@link #sendRaw} do the rest, and
 * {@link #sendWithFault} breaks a fragmented message off in the middle ({@link MidTransferFault}).
 *
 * <p>Created by {@link SmbDirectTestKit#peer()}; configure before {@link #connect} or
 * {@link #listen}. Driven by the kit's {@link VirtualClock}; not thread-safe.
 */
public final class ScriptedPeer implements AutoCloseable {

    /** Sees each message the peer is about to send; may change it. */
    @FunctionalInterface
    public interface Hook {
        /**
         * Called before {@code frame} is sent.
         *
         * @return false to drop the message (it is not sent and costs no credit)
         */
        boolean beforeSend(Frame frame);
    }

    /** Where the connection is. */
    public enum State {
        /** Neither connecting nor listening yet. */
        IDLE,
        /** Waiting for the RDMA connection (active) or the Negotiate Request (passive). */
        CONNECTING,
        /** Negotiate Request sent, waiting for the response (active). */
        NEGOTIATING,
        /** Negotiated: Data Transfer messages flow. */
        ESTABLISHED,
        /** Ended: by either side, a violation or a failed negotiation. */
        CLOSED
    }

    private final RawPeer raw;
    private final VirtualClock clock;
    private final BooleanSupplier reaction = this::react;

    // configuration
    private int receiveCredits = 32;
    private int receiveSize = 8192;
    private int maxSendSize = 1364;
    private int maxFragmentedSize = 1 << 20;
    private int sendCreditTarget = 32;
    private int maxReadWriteSize = 8 << 20;

    // connection state
    private State state = State.IDLE;
    private boolean active;
    private int processed;
    private int sendCredits;
    private int grantedToTransport;
    private int transportTarget;
    private int negotiatedMaxSend;
    private long negotiatedMaxReadWrite;
    private final ArrayDeque<byte[]> sendQueue = new ArrayDeque<>();
    private int sendOffset;
    private boolean responseDue;
    private boolean requestResponse;
    private final ByteArrayOutputStream reassembly = new ByteArrayOutputStream();
    /** Bytes of the transport's message under way still to come (FragmentReassemblyRemaining), 0 between messages. */
    private long fragmentRemaining;

    // misbehaviour
    private Hook hook = f -> true;
    private boolean withhold;
    private int floodExtra;
    private boolean stalled;
    private MidTransferFault fault;
    private byte[] faultMessage;
    private int faultAfter;
    private int faultFragmentsSent;
    /** The work request of the last message sent, or -1. */
    private long lastSendWr = -1;

    // what it saw
    private final List<PeerFragment> fragments = new ArrayList<>();
    private final List<byte[]> messages = new ArrayList<>();
    private final List<Frame> sent = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private long creditsGrantedByTransport;
    private long creditsGrantedToTransport;
    private int keepalivesAnswered;
    private byte[] negotiateRequest;
    private byte[] negotiateResponse;
    private BiConsumer<ScriptedPeer, byte[]> onMessage = (p, m) -> { };

    ScriptedPeer(RawPeer raw, VirtualClock clock) {
        this.raw = raw;
        this.clock = clock;
        clock.addParticipant(reaction);
    }

    // ---- configuration ----------------------------------------------------------------------

    /** Receives posted, and so the most credits the peer grants (default 32). */
    public ScriptedPeer receiveCredits(int count) {
        requireIdle();
        receiveCredits = count;
        return this;
    }

    /** MaxReceiveSize offered, the size of each receive (default 8192). */
    public ScriptedPeer maxReceiveSize(int bytes) {
        requireIdle();
        receiveSize = bytes;
        return this;
    }

    /** MaxSendSize / PreferredSendSize offered (default 1364). */
    public ScriptedPeer maxSendSize(int bytes) {
        requireIdle();
        maxSendSize = bytes;
        return this;
    }

    /** MaxFragmentedSize offered (default 1 MiB). */
    public ScriptedPeer maxFragmentedSize(int bytes) {
        requireIdle();
        maxFragmentedSize = bytes;
        return this;
    }

    /** CreditsRequested sent (default 32). */
    public ScriptedPeer sendCreditTarget(int credits) {
        requireIdle();
        sendCreditTarget = credits;
        return this;
    }

    /** MaxReadWriteSize offered when passive (default 8 MiB). */
    public ScriptedPeer maxReadWriteSize(int bytes) {
        requireIdle();
        maxReadWriteSize = bytes;
        return this;
    }

    /** Called with each complete upper-layer message received (the script's "server" or "client"). */
    public ScriptedPeer onMessage(BiConsumer<ScriptedPeer, byte[]> handler) {
        onMessage = Objects.requireNonNull(handler, "handler");
        return this;
    }

    /** Installs the hook every outgoing message passes (replacing the previous one). */
    public ScriptedPeer hook(Hook value) {
        hook = Objects.requireNonNull(value, "hook");
        return this;
    }

    private void requireIdle() {
        if (state != State.IDLE) {
            throw new IllegalStateException("configure the peer before connecting or listening");
        }
    }

    // ---- roles ------------------------------------------------------------------------------

    /** Active role: connects to a transport's listener and negotiates (during the next settle). */
    public ScriptedPeer connect(InetSocketAddress listener) {
        requireIdle();
        active = true;
        prepare();
        try {
            raw.connect(listener, new byte[0]);
        } catch (RdmaException e) {
            throw new IllegalStateException("cannot connect to " + listener + ": " + e.getMessage(), e);
        }
        state = State.CONNECTING;
        return this;
    }

    /** Passive role: listens on its own device and answers the transport's Negotiate Request. */
    public InetSocketAddress listen() {
        requireIdle();
        active = false;
        prepare();
        InetSocketAddress a;
        try {
            a = raw.listen(new InetSocketAddress(raw.provider().address(), 0));
        } catch (RdmaException e) {
            throw new IllegalStateException("cannot listen: " + e.getMessage(), e);
        }
        state = State.CONNECTING;
        return a;
    }

    private void prepare() {
        raw.receiveSize(receiveSize).initialReceives(receiveCredits).autoRepost(true);
    }

    // ---- the upper layer's side -------------------------------------------------------------

    /** Queues an upper-layer message; it goes out in fragments as credits allow. */
    public ScriptedPeer send(byte[] message) {
        sendQueue.add(message.clone());
        return this;
    }

    /** Asks the transport for a prompt reply with the next message (a keepalive, 3.1.6.2). */
    public ScriptedPeer sendKeepalive() {
        requestResponse = true;
        return this;
    }

    /** Sends {@code message} as it is (no header added, no credit check): any bytes at all. */
    public ScriptedPeer sendRaw(byte[] message) {
        try {
            raw.send(message);
        } catch (RdmaException e) {
            throw new IllegalStateException(e);
        }
        return this;
    }

    /**
     * Sends {@code payload} as one Data Transfer message the peer holds no Send Credit for, the
     * misbehaviour [MS-SMBD] 3.1.5.1 forbids, in one call. So that the message arrives beyond every
     * receive the transport can have posted, it goes last in a burst sent now: first as many empty
     * Data Transfer messages, granting nothing, as the larger of the Send Credits the peer holds and
     * its CreditsRequested (a correct transport posts no more receives than the peer asks for,
     * 3.1.5.9 and A-18 of the project's [MS-SMBD] digest). The burst waits for no settle, credit or
     * hook; every message of it appears in {@link #sent()}; the peer holds no Send Credit after it.
     * The payload must fit in one message (the negotiated MaxSendSize less 24 bytes).
     *
     * <p>The payload's Send finds no receive posted, so the RDMA layer fails the connection before
     * any SMB Direct code sees the message: the transport closes with {@code PROVIDER_ERROR}, over the
     * mock fabric {@code QP_ERROR: receiver not ready: a Send of 124 bytes found no receive posted at
     * the receiving side (RNR retry count 0)} (A-22; {@code docs/close-reason-rules.md} says what
     * each provider reports). The transport's own check, {@code PROTOCOL_VIOLATION R-3.1.5.1-04},
     * speaks only when such a message lands in a receive the transport posted but has not granted.
     *
     * @throws IllegalStateException before negotiation, or when the payload does not fit in one message
     * @since 1.2
     */
    public ScriptedPeer sendWithoutCredit(byte[] payload) {
        if (state() != State.ESTABLISHED) {
            throw new IllegalStateException("sendWithoutCredit needs an established connection: " + state);
        }
        int room = negotiatedMaxSend - KitWire.PAYLOAD_OFFSET;
        if (payload.length > room) {
            throw new IllegalStateException("sendWithoutCredit: " + payload.length
                    + " bytes do not fit in one message of at most " + room + " bytes of payload");
        }
        for (int n = Math.max(sendCredits, sendCreditTarget); n > 0; n--) {
            transmit(new Frame(Frame.Kind.DATA, dataMessage(0, null, 0, 0, 0, 0)));
        }
        sendCredits = 0;
        transmit(new Frame(Frame.Kind.DATA, dataMessage(0, payload, 0, payload.length, 0, 0)));
        return this;
    }

    /**
     * Sends {@code frame} as it is, like {@link #sendRaw(byte[])}: no hook, no credit check, no credit
     * spent or granted in the peer's counts. Build it with {@link Frame#negotiateRequest},
     * {@link Frame#negotiateResponse} or {@link Frame#dataTransfer}.
     *
     * @since 1.2
     */
    public ScriptedPeer sendRaw(Frame frame) {
        return sendRaw(frame.bytes());
    }

    /**
     * Sends {@code payload} as one Data Transfer message (with the grant due and a credit) as a Send
     * with Invalidate of the transport's {@code token} (3.1.4.2).
     */
    public ScriptedPeer sendWithInvalidate(byte[] payload, int token) {
        byte[] m = dataMessage(0, payload, 0, payload.length, 0, 0);
        try {
            raw.sendWithInvalidate(m, token);
        } catch (RdmaException e) {
            throw new IllegalStateException(e);
        }
        sendCredits--;
        grantedToTransport += KitWire.u16(m, KitWire.DATA_CREDITS_GRANTED);
        creditsGrantedToTransport += KitWire.u16(m, KitWire.DATA_CREDITS_GRANTED);
        return this;
    }

    /** Registers {@code length} bytes the transport may reach as {@code access} allows. */
    public PeerBuffer register(int length, RemoteAccess access) {
        Set<MemoryAccess> a = EnumSet.of(MemoryAccess.LOCAL_WRITE);
        if (access.allowsRead()) {
            a.add(MemoryAccess.REMOTE_READ);
        }
        if (access.allowsWrite()) {
            a.add(MemoryAccess.REMOTE_WRITE);
        }
        try {
            return new PeerBuffer(raw.register(length, a));
        } catch (RdmaException e) {
            throw new IllegalStateException("registration failed: " + e.getMessage(), e);
        }
    }

    /** RDMA Writes {@code data} into the transport's buffer named by {@code remote}. @return the work request id */
    public long rdmaWrite(byte[] data, BufferDescriptor remote) {
        try {
            return raw.rdmaWrite(data, remote.offset(), remote.token());
        } catch (RdmaException e) {
            throw new IllegalStateException(e);
        }
    }

    /** RDMA Reads the transport's buffer named by {@code remote} into {@code local}. @return the work request id */
    public long rdmaRead(PeerBuffer local, BufferDescriptor remote) {
        try {
            return raw.rdmaRead(local.region(), 0, remote.length(), remote.offset(), remote.token());
        } catch (RdmaException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The status of the work request {@code wrId}, or null while it has not completed. */
    public CompletionStatus status(long wrId) {
        for (RawCompletion c : raw.completions()) {
            if (c.wrId() == wrId) {
                return c.status();
            }
        }
        return null;
    }

    // ---- misbehaviour -----------------------------------------------------------------------

    /** What goes wrong in the middle of a fragmented message ({@link #sendWithFault}). */
    public enum MidTransferFault {
        /** An orderly RDMA disconnect; the rest of the message is never sent. */
        DISCONNECT,
        /** The peer's host vanishes (no disconnect reaches the transport); the rest is never sent. */
        CRASH,
        /**
         * The peer stops reacting, as {@link #stall(boolean) stall(true)}; the rest follows on
         * {@code stall(false)}.
         */
        STALL,
        /**
         * The next fragment says RemainingDataLength 0 although bytes are missing: the message ends
         * too early ([MS-SMBD] R-3.1.5.8-18); the rest is never sent.
         */
        END_EARLY,
        /**
         * The next fragment's RemainingDataLength claims one byte more than remains, disagreeing with
         * what the earlier fragments announced.
         */
        OVERSTATE_REMAINING,
        /**
         * An empty Data Transfer message (RemainingDataLength 0) goes between two fragments, which
         * [MS-SMBD] 3.1.5.4 does not allow (A-27, R-3.1.5.8-18); the fragments go on after it.
         */
        INTERLEAVE_EMPTY
    }

    /**
     * Queues {@code message} like {@link #send(byte[])} and, once {@code fragments} of its fragments
     * went out, does {@code fault} instead of sending the next one: "the client disconnects in the
     * middle of a fragmented request" in one call. A disconnect or crash waits until the fragments
     * sent have arrived (their Sends completed), so the transport has them when the peer goes. The
     * message needs more than {@code fragments} fragments of the negotiated MaxSendSize less 24 bytes
     * (a settle that sends it whole throws an {@link IllegalStateException} saying so). One such
     * message at a time.
     *
     * @param fragments how many fragments go out normally first, at least 1
     * @throws IllegalArgumentException when {@code fragments} is below 1
     * @throws IllegalStateException when another {@code sendWithFault} has not acted yet
     * @since 1.1
     */
    public ScriptedPeer sendWithFault(byte[] message, int fragments, MidTransferFault fault) {
        if (fragments < 1) {
            throw new IllegalArgumentException("fragments must be at least 1: " + fragments);
        }
        if (this.fault != null) {
            throw new IllegalStateException("a sendWithFault (" + this.fault + ") has not acted yet");
        }
        byte[] m = message.clone();
        sendQueue.add(m);
        faultMessage = m;
        faultAfter = fragments;
        faultFragmentsSent = 0;
        this.fault = Objects.requireNonNull(fault, "fault");
        return this;
    }

    /** The fault to do instead of the next fragment of {@code head}, or null. */
    private MidTransferFault faultDue(byte[] head) {
        return fault != null && head == faultMessage && faultFragmentsSent == faultAfter ? fault : null;
    }

    /** From now on grants the transport nothing (true) or again what it may (false). */
    public ScriptedPeer withholdCredits(boolean value) {
        withhold = value;
        return this;
    }

    /** Grants {@code extra} credits beyond the receives posted with the next message, and sends one now. */
    public ScriptedPeer floodCredits(int extra) {
        floodExtra = extra;
        return this;
    }

    /** Stops reacting (true): nothing is answered, granted or sent until {@code stall(false)}. */
    public ScriptedPeer stall(boolean value) {
        stalled = value;
        return this;
    }

    /** Orderly RDMA disconnect. */
    public void disconnect() {
        raw.disconnect();
        state = State.CLOSED;
    }

    /** The peer's host vanishes: no disconnect reaches the transport. */
    public void crash() {
        raw.crash();
        state = State.CLOSED;
    }

    @Override
    public void close() {
        clock.removeParticipant(reaction);
        raw.close();
        state = State.CLOSED;
    }

    // ---- what it saw ------------------------------------------------------------------------

    /** Where the connection is. */
    public State state() {
        if (state != State.CLOSED && raw.disconnectCause() != null) {
            state = State.CLOSED;
        }
        return state;
    }

    /** Whether negotiation succeeded and the connection has not ended. */
    public boolean isEstablished() {
        return state() == State.ESTABLISHED;
    }

    /** Complete upper-layer messages received, in order (copies). */
    public List<byte[]> messages() {
        List<byte[]> out = new ArrayList<>();
        for (byte[] m : messages) {
            out.add(m.clone());
        }
        return out;
    }

    /** Every Data Transfer message received, in order. */
    public List<PeerFragment> fragments() {
        return List.copyOf(fragments);
    }

    /** Every message the peer sent, after its hook (dropped ones excluded). */
    public List<Frame> sent() {
        return List.copyOf(sent);
    }

    /** Rules the transport broke, as the peer saw them (empty for a correct transport). */
    public List<String> violations() {
        return List.copyOf(violations);
    }

    /**
     * Send Credits the peer holds now (its Connection.SendCredits): what the transport granted it and
     * it has not spent yet. Every message the peer sends costs one, an empty one that only grants
     * credits included ([MS-SMBD] 3.1.5.1). So right after negotiation an active peer holds one less
     * than the Negotiate Response granted: its first Data Transfer message, which grants the
     * transport its first Send Credits (the passive side starts with none, A-14 of the project's
     * [MS-SMBD] digest), spent one. With {@code sendCreditTarget(4)} a transport that grants the 4
     * asked for leaves the peer 3 after the first settle; {@link #totalCreditsGrantedToPeer()} says 4.
     *
     * @since 1.1
     */
    public int peerSendCredits() {
        return sendCredits;
    }

    /**
     * Send Credits the transport holds now (the transport's Connection.SendCredits), as the peer counts
     * them: what the peer granted and the transport has not spent yet. 0 means the transport cannot
     * send until the peer grants more.
     *
     * @since 1.1
     */
    public int transportSendCredits() {
        return grantedToTransport;
    }

    /**
     * The sum of CreditsGranted over every message the transport sent the peer (the Negotiate
     * Response's included): all the Send Credits the peer was ever given.
     *
     * @since 1.1
     */
    public long totalCreditsGrantedToPeer() {
        return creditsGrantedByTransport;
    }

    /**
     * The sum of CreditsGranted over every message the peer sent the transport (the Negotiate
     * Response's included when the peer is passive): all the Send Credits the transport was ever given.
     *
     * @since 1.1
     */
    public long totalCreditsGrantedToTransport() {
        return creditsGrantedToTransport;
    }

    /** Keepalives (SMB_DIRECT_RESPONSE_REQUESTED) of the transport the peer answered. */
    public int keepalivesAnswered() {
        return keepalivesAnswered;
    }

    /** Messages still queued to send (waiting for credits). */
    public int queuedMessages() {
        return sendQueue.size();
    }

    /** The MaxSendSize negotiated for the peer's sends (0 before negotiation). */
    public int negotiatedMaxSendSize() {
        return negotiatedMaxSend;
    }

    /** The Negotiate Request received (passive) or sent (active), or null. */
    public byte[] negotiateRequest() {
        return negotiateRequest == null ? null : negotiateRequest.clone();
    }

    /** The Negotiate Response received (active) or sent (passive), or null. */
    public byte[] negotiateResponse() {
        return negotiateResponse == null ? null : negotiateResponse.clone();
    }

    /** The raw peer underneath, for byte-level scripting. */
    public RawPeer raw() {
        return raw;
    }

    // ---- the reaction -----------------------------------------------------------------------

    private boolean react() {
        if (stalled || state == State.IDLE) {
            return false;
        }
        boolean moved = false;
        if (state == State.CONNECTING && active && raw.isConnected()) {
            sendNegotiateRequest();
            moved = true;
        }
        List<RawMessage> in = raw.messages();
        while (processed < in.size() && !stalled) {
            receive(in.get(processed++));
            moved = true;
        }
        if (state() == State.ESTABLISHED) {
            moved |= pump();
        }
        return moved;
    }

    private void sendNegotiateRequest() {
        byte[] b = KitWire.negotiateRequest(sendCreditTarget, maxSendSize, receiveSize, maxFragmentedSize);
        Frame f = new Frame(Frame.Kind.NEGOTIATE_REQUEST, b);
        if (hook.beforeSend(f)) {
            negotiateRequest = f.bytes();
            transmit(f);
        }
        state = State.NEGOTIATING;
    }

    private void receive(RawMessage m) {
        byte[] b = m.bytes();
        if (state == State.CONNECTING && !active) {
            negotiateRequest = b.clone();
            answerNegotiateRequest(b);
        } else if (state == State.NEGOTIATING && active) {
            negotiateResponse = b.clone();
            String v = KitWire.checkNegotiateResponse(b, receiveSize);
            if (v != null) {
                violate("Negotiate Response: " + v);
                return;
            }
            sendCredits = KitWire.u16(b, KitWire.RSP_CREDITS_GRANTED);
            creditsGrantedByTransport += sendCredits;
            transportTarget = KitWire.u16(b, KitWire.RSP_CREDITS_REQUESTED);
            negotiatedMaxSend = (int) Math.min(maxSendSize, KitWire.u32(b, KitWire.RSP_MAX_RECEIVE_SIZE));
            negotiatedMaxReadWrite = KitWire.u32(b, KitWire.RSP_MAX_READ_WRITE_SIZE);
            state = State.ESTABLISHED;
        } else if (state == State.ESTABLISHED) {
            receiveData(m, b);
        }
    }

    private void answerNegotiateRequest(byte[] b) {
        String v = KitWire.checkNegotiateRequest(b);
        if (v != null) {
            if (v.startsWith("R-3.1.5.6-03")) {
                // the only failure answered with a Negotiate Response (R-3.1.5.6-04); the others terminate
                transmit(new Frame(Frame.Kind.NEGOTIATE_RESPONSE, KitWire.negotiateFailure(KitWire.STATUS_NOT_SUPPORTED)));
            }
            violate("Negotiate Request: " + v);
            return;
        }
        transportTarget = KitWire.u16(b, KitWire.REQ_CREDITS_REQUESTED);
        int grant = withhold ? 0 : Math.min(receiveCredits, transportTarget) + floodExtra;
        floodExtra = 0;
        negotiatedMaxSend = (int) Math.min(maxSendSize, KitWire.u32(b, KitWire.REQ_MAX_RECEIVE_SIZE));
        byte[] r = KitWire.negotiateResponse(sendCreditTarget, grant, maxReadWriteSize, maxSendSize, receiveSize,
                maxFragmentedSize);
        Frame f = new Frame(Frame.Kind.NEGOTIATE_RESPONSE, r);
        if (hook.beforeSend(f)) {
            negotiateResponse = f.bytes();
            transmit(f);
            int granted = f.u16(KitWire.RSP_CREDITS_GRANTED);
            grantedToTransport += granted;
            creditsGrantedToTransport += granted;
        }
        state = State.ESTABLISHED;
    }

    private void receiveData(RawMessage m, byte[] b) {
        String v = KitWire.checkDataTransfer(b, maxFragmentedSize, fragmentRemaining);
        if (v != null) {
            violate("Data Transfer: " + v);
            return;
        }
        grantedToTransport--;
        if (grantedToTransport < 0) {
            violate("the transport sent a message without holding a Send Credit (R-3.1.5.1)");
            return;
        }
        int granted = KitWire.u16(b, KitWire.DATA_CREDITS_GRANTED);
        int flags = KitWire.u16(b, KitWire.DATA_FLAGS);
        long remaining = KitWire.u32(b, KitWire.DATA_REMAINING_LENGTH);
        long dataLength = KitWire.u32(b, KitWire.DATA_LENGTH);
        sendCredits += granted;
        creditsGrantedByTransport += granted;
        transportTarget = KitWire.u16(b, KitWire.DATA_CREDITS_REQUESTED);
        fragments.add(new PeerFragment(transportTarget, granted, flags, remaining, dataLength, grantedToTransport,
                m.invalidatedToken() ? m.token() : null));
        if ((flags & KitWire.RESPONSE_REQUESTED) != 0) {
            responseDue = true;
        }
        // 3.1.5.8: append the payload; a message ends with RemainingDataLength 0 (an empty message outside
        // a message under way is a credit grant or keepalive, no upper-layer message, A-28)
        boolean underWay = fragmentRemaining > 0 || dataLength > 0 || remaining > 0;
        reassembly.write(b, (int) KitWire.u32(b, KitWire.DATA_OFFSET), (int) dataLength);
        fragmentRemaining = remaining;
        if (underWay && remaining == 0) {
            byte[] message = reassembly.toByteArray();
            reassembly.reset();
            messages.add(message);
            onMessage.accept(this, message);
        }
    }

    private boolean pump() {
        boolean moved = false;
        for (;;) {
            int posted = receiveCredits;
            int grantable = withhold ? 0 : Math.max(0, Math.min(posted, transportTarget) - grantedToTransport);
            int grant = grantable + floodExtra;
            boolean data = !sendQueue.isEmpty();
            boolean topUp = grantable > 0 && grantedToTransport * 2 <= Math.min(posted, transportTarget);
            if (!data && !responseDue && !requestResponse && !topUp && floodExtra == 0) {
                return moved;
            }
            if (sendCredits == 0 || (sendCredits == 1 && grant == 0)) {
                return moved;
            }
            byte[] message;
            int flags = requestResponse ? KitWire.RESPONSE_REQUESTED : 0;
            boolean last = true;
            MidTransferFault acting = data ? faultDue(sendQueue.peek()) : null;
            if ((acting == MidTransferFault.DISCONNECT || acting == MidTransferFault.CRASH) && lastSendWr >= 0
                    && status(lastSendWr) == null) {
                return moved; // the fragments sent are still on their way; they arrive before the peer goes
            }
            if (acting == MidTransferFault.DISCONNECT || acting == MidTransferFault.CRASH
                    || acting == MidTransferFault.STALL) {
                fault = null;
                if (acting == MidTransferFault.DISCONNECT) {
                    disconnect();
                } else if (acting == MidTransferFault.CRASH) {
                    crash();
                } else {
                    stalled = true;
                }
                return true;
            }
            if (acting == MidTransferFault.INTERLEAVE_EMPTY) {
                fault = null;
                data = false; // an empty message now; the fragments go on after it
                last = false;
                message = dataMessage(grant, null, 0, 0, 0, flags);
            } else if (data) {
                byte[] whole = sendQueue.peek();
                int room = negotiatedMaxSend - KitWire.PAYLOAD_OFFSET;
                int chunk = Math.min(room, whole.length - sendOffset);
                long remaining = whole.length - sendOffset - chunk;
                long claimed = acting == MidTransferFault.END_EARLY ? 0
                        : acting == MidTransferFault.OVERSTATE_REMAINING ? remaining + 1 : remaining;
                message = dataMessage(grant, whole, sendOffset, chunk, claimed, flags);
                sendOffset += chunk;
                last = remaining == 0 || acting == MidTransferFault.END_EARLY;
                if (acting != null) {
                    fault = null;
                } else if (whole == faultMessage) {
                    faultFragmentsSent++;
                    if (last && fault != null) {
                        fault = null;
                        throw new IllegalStateException("sendWithFault: the message went out whole in "
                                + faultFragmentsSent + " fragment(s) of at most " + room + " bytes; the fault was to act"
                                + " after " + faultAfter);
                    }
                }
            } else {
                message = dataMessage(grant, null, 0, 0, 0, flags);
            }
            Frame f = new Frame(Frame.Kind.DATA, message);
            if (hook.beforeSend(f)) {
                transmit(f);
                sendCredits--;
                int granted = f.length() >= 4 ? f.creditsGranted() : 0;
                grantedToTransport += granted;
                creditsGrantedToTransport += granted;
            }
            if (data && last) {
                sendQueue.poll();
                sendOffset = 0;
            }
            if (responseDue) {
                keepalivesAnswered++;
            }
            responseDue = false;
            requestResponse = false;
            floodExtra = 0;
            moved = true;
        }
    }

    private byte[] dataMessage(int grant, byte[] payload, int from, int length, long remaining, int flags) {
        return KitWire.data(sendCreditTarget, Math.min(grant, 0xFFFF), flags, remaining, payload, from, length);
    }

    private void transmit(Frame f) {
        try {
            lastSendWr = raw.send(f.bytes());
            sent.add(f);
        } catch (RdmaException e) {
            violate("send failed: " + e.getMessage());
        }
    }

    private void violate(String what) {
        violations.add(what);
        raw.disconnect();
        state = State.CLOSED;
    }

    @Override
    public String toString() {
        return "ScriptedPeer[" + (active ? "active" : "passive") + ", " + state + ", peerSendCredits=" + sendCredits
                + ", transportSendCredits=" + grantedToTransport + "]";
    }
}
