package smbdirect.impl.engine;

import java.time.Duration;
import java.util.Objects;

import smbdirect.api.dto.SettingsDTO;

/**
 * The immutable settings a connection starts with ([MS-SMBD] 3.1.4.1 / 3.1.7.2 "implementation
 * values"), validated against the spec's floors. Defaults are Windows' (appendix B notes 2, 3, 8;
 * timers from the SmbDirect registry defaults). Attribute names are those of the
 * {@code smbdirect.transport} configuration.
 *
 * <p>Negotiated values (credits and sizes) are fixed per connection when it negotiates; the timer
 * values ({@link #keepaliveInterval()}, {@link #keepaliveResponseTimeout()},
 * {@link #creditGrantTimeout()}) may change for live connections.
 *
 * <p>A value: two settings are {@link #equals equal} when every setting is.
 */
public final class TransportSettings {

    /** Windows' values. */
    public static final TransportSettings DEFAULTS = builder().build();

    private final int receiveCreditMax;
    private final int sendCreditTarget;
    private final int maxSendSize;
    private final int maxReceiveSize;
    private final int maxFragmentedRecvSize;
    private final int maxReadWriteSize;
    private final Duration keepaliveInterval;
    private final Duration keepaliveResponseTimeout;
    private final Duration activeNegotiationTimeout;
    private final Duration passiveNegotiationTimeout;
    private final Duration creditGrantTimeout;
    private final double creditRefillFraction;
    private final int inboundReadDepth;
    private final int outboundReadDepth;
    private final int maxConnectionsPerListener;
    private final int maxNegotiatingPerListener;
    private final long receiveBufferBudget;
    private final Duration drainTimeout;

    private TransportSettings(Builder b) {
        receiveCreditMax = b.receiveCreditMax;
        sendCreditTarget = b.sendCreditTarget;
        maxSendSize = b.maxSendSize;
        maxReceiveSize = b.maxReceiveSize;
        maxFragmentedRecvSize = b.maxFragmentedRecvSize;
        maxReadWriteSize = b.maxReadWriteSize;
        keepaliveInterval = b.keepaliveInterval;
        keepaliveResponseTimeout = b.keepaliveResponseTimeout;
        activeNegotiationTimeout = b.activeNegotiationTimeout;
        passiveNegotiationTimeout = b.passiveNegotiationTimeout;
        creditGrantTimeout = b.creditGrantTimeout;
        creditRefillFraction = b.creditRefillFraction;
        inboundReadDepth = b.inboundReadDepth;
        outboundReadDepth = b.outboundReadDepth;
        maxConnectionsPerListener = b.maxConnectionsPerListener;
        maxNegotiatingPerListener = b.maxNegotiatingPerListener;
        receiveBufferBudget = b.receiveBufferBudget;
        drainTimeout = b.drainTimeout;
    }

    /** Connection.ReceiveCreditMax: the most receive credits granted to the peer (Windows 255). */
    public int receiveCreditMax() {
        return receiveCreditMax;
    }

    /** Connection.SendCreditTarget: the Send Credits asked of the peer (Windows 255). */
    public int sendCreditTarget() {
        return sendCreditTarget;
    }

    /** Connection.MaxSendSize before negotiation (Windows 1364). */
    public int maxSendSize() {
        return maxSendSize;
    }

    /** Connection.MaxReceiveSize before negotiation (Windows 8192). */
    public int maxReceiveSize() {
        return maxReceiveSize;
    }

    /** Connection.MaxFragmentedRecvSize (Windows 1048576). */
    public int maxFragmentedRecvSize() {
        return maxFragmentedRecvSize;
    }

    /** Connection.MaxReadWriteSize offered when passive, and the cap applied when active (Windows 8 MiB). */
    public int maxReadWriteSize() {
        return maxReadWriteSize;
    }

    /** Connection.KeepaliveInterval: idle time before a keepalive (Windows 120 s). */
    public Duration keepaliveInterval() {
        return keepaliveInterval;
    }

    /** How long to wait for any message after sending a keepalive (Windows 5 s, note 4). */
    public Duration keepaliveResponseTimeout() {
        return keepaliveResponseTimeout;
    }

    /** Negotiation Timer of the active side, covering connect and negotiation (120 s, 3.1.4.1). */
    public Duration activeNegotiationTimeout() {
        return activeNegotiationTimeout;
    }

    /** Negotiation Timer of the passive side, from connection arrival (5 s, 3.1.7.2). */
    public Duration passiveNegotiationTimeout() {
        return passiveNegotiationTimeout;
    }

    /**
     * Send Credit Grant Timer: a connection that holds no Send Credit while it has something to send
     * for this long is closed (Windows 5 s); {@link Duration#ZERO} disables it.
     */
    public Duration creditGrantTimeout() {
        return creditGrantTimeout;
    }

    /**
     * Refill receives and grant credits at once when the credits the peer holds fall below this
     * fraction of its target (peer-lessons 3; Linux uses 1/4). In (0, 1].
     */
    public double creditRefillFraction() {
        return creditRefillFraction;
    }

    /** IRD offered: RDMA Reads the peer may have outstanding against us. */
    public int inboundReadDepth() {
        return inboundReadDepth;
    }

    /** ORD offered: RDMA Reads we may have outstanding. */
    public int outboundReadDepth() {
        return outboundReadDepth;
    }

    /** Most live connections one listener keeps; further requests are rejected. */
    public int maxConnectionsPerListener() {
        return maxConnectionsPerListener;
    }

    /** Most connections one listener keeps in negotiation at once; further requests are rejected. */
    public int maxNegotiatingPerListener() {
        return maxNegotiatingPerListener;
    }

    /**
     * Bytes of posted receive buffers the whole transport may hold; a connection that would exceed
     * it is refused cleanly.
     */
    public long receiveBufferBudget() {
        return receiveBufferBudget;
    }

    /**
     * How long an established connection may go on finishing what is in flight when the transport
     * stops or its provider is withdrawn, before it is closed ({@link Duration#ZERO}: closed at once).
     */
    public Duration drainTimeout() {
        return drainTimeout;
    }

    /**
     * The settings as the runtime DTO shows them: each under the name and in the unit of its
     * configuration attribute (seconds, milliseconds, MiB). The one mapping to {@link SettingsDTO}:
     * the engine's and the transport's DTOs, the JSON status, JMX and the shell show what it gives.
     * {@link SettingsDTO#provider_target} is left to the transport that selects among providers.
     */
    public SettingsDTO toDTO() {
        SettingsDTO d = new SettingsDTO();
        d.receiveCreditMax = receiveCreditMax;
        d.sendCreditTarget = sendCreditTarget;
        d.maxSendSize = maxSendSize;
        d.maxReceiveSize = maxReceiveSize;
        d.maxFragmentedRecvSize = maxFragmentedRecvSize;
        d.maxReadWriteSize = maxReadWriteSize;
        d.keepaliveIntervalSeconds = keepaliveInterval.toSeconds();
        d.keepaliveResponseTimeoutSeconds = keepaliveResponseTimeout.toSeconds();
        d.activeNegotiationTimeoutSeconds = activeNegotiationTimeout.toSeconds();
        d.passiveNegotiationTimeoutSeconds = passiveNegotiationTimeout.toSeconds();
        d.creditGrantTimeoutMillis = creditGrantTimeout.toMillis();
        d.creditRefillFraction = creditRefillFraction;
        d.inboundReadDepth = inboundReadDepth;
        d.outboundReadDepth = outboundReadDepth;
        d.maxConnectionsPerListener = maxConnectionsPerListener;
        d.maxNegotiatingPerListener = maxNegotiatingPerListener;
        d.receiveBufferBudgetMB = receiveBufferBudget / (1024L * 1024L);
        d.drainTimeoutSeconds = drainTimeout.toSeconds();
        return d;
    }

    /** A builder starting from these values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.receiveCreditMax = receiveCreditMax;
        b.sendCreditTarget = sendCreditTarget;
        b.maxSendSize = maxSendSize;
        b.maxReceiveSize = maxReceiveSize;
        b.maxFragmentedRecvSize = maxFragmentedRecvSize;
        b.maxReadWriteSize = maxReadWriteSize;
        b.keepaliveInterval = keepaliveInterval;
        b.keepaliveResponseTimeout = keepaliveResponseTimeout;
        b.activeNegotiationTimeout = activeNegotiationTimeout;
        b.passiveNegotiationTimeout = passiveNegotiationTimeout;
        b.creditGrantTimeout = creditGrantTimeout;
        b.creditRefillFraction = creditRefillFraction;
        b.inboundReadDepth = inboundReadDepth;
        b.outboundReadDepth = outboundReadDepth;
        b.maxConnectionsPerListener = maxConnectionsPerListener;
        b.maxNegotiatingPerListener = maxNegotiatingPerListener;
        b.receiveBufferBudget = receiveBufferBudget;
        b.drainTimeout = drainTimeout;
        return b;
    }

    /** A builder with Windows' defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether {@code o} is a {@code TransportSettings} with the same value for every setting. */
    @Override
    public boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        return o instanceof TransportSettings s
                && receiveCreditMax == s.receiveCreditMax
                && sendCreditTarget == s.sendCreditTarget
                && maxSendSize == s.maxSendSize
                && maxReceiveSize == s.maxReceiveSize
                && maxFragmentedRecvSize == s.maxFragmentedRecvSize
                && maxReadWriteSize == s.maxReadWriteSize
                && keepaliveInterval.equals(s.keepaliveInterval)
                && keepaliveResponseTimeout.equals(s.keepaliveResponseTimeout)
                && activeNegotiationTimeout.equals(s.activeNegotiationTimeout)
                && passiveNegotiationTimeout.equals(s.passiveNegotiationTimeout)
                && creditGrantTimeout.equals(s.creditGrantTimeout)
                && Double.compare(creditRefillFraction, s.creditRefillFraction) == 0
                && inboundReadDepth == s.inboundReadDepth
                && outboundReadDepth == s.outboundReadDepth
                && maxConnectionsPerListener == s.maxConnectionsPerListener
                && maxNegotiatingPerListener == s.maxNegotiatingPerListener
                && receiveBufferBudget == s.receiveBufferBudget
                && drainTimeout.equals(s.drainTimeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(receiveCreditMax, sendCreditTarget, maxSendSize, maxReceiveSize, maxFragmentedRecvSize,
                maxReadWriteSize, keepaliveInterval, keepaliveResponseTimeout, activeNegotiationTimeout,
                passiveNegotiationTimeout, creditGrantTimeout, creditRefillFraction, inboundReadDepth,
                outboundReadDepth, maxConnectionsPerListener, maxNegotiatingPerListener, receiveBufferBudget,
                drainTimeout);
    }

    @Override
    public String toString() {
        return "TransportSettings[receiveCreditMax=" + receiveCreditMax + ", sendCreditTarget=" + sendCreditTarget
                + ", maxSendSize=" + maxSendSize + ", maxReceiveSize=" + maxReceiveSize + ", maxFragmentedRecvSize="
                + maxFragmentedRecvSize + ", maxReadWriteSize=" + maxReadWriteSize + ", keepaliveInterval="
                + keepaliveInterval + ", keepaliveResponseTimeout=" + keepaliveResponseTimeout
                + ", activeNegotiationTimeout=" + activeNegotiationTimeout + ", passiveNegotiationTimeout="
                + passiveNegotiationTimeout + ", creditGrantTimeout=" + creditGrantTimeout + ", creditRefillFraction="
                + creditRefillFraction + ", inboundReadDepth=" + inboundReadDepth + ", outboundReadDepth="
                + outboundReadDepth + ", maxConnectionsPerListener=" + maxConnectionsPerListener
                + ", maxNegotiatingPerListener=" + maxNegotiatingPerListener + ", receiveBufferBudget="
                + receiveBufferBudget + ", drainTimeout=" + drainTimeout + "]";
    }

    /**
     * Collects values; {@link #build()} validates them all and refuses the first bad one with a
     * {@link SettingsException} naming the attribute.
     */
    public static final class Builder {
        /** The longest drain: an hour. */
        private static final Duration MAX_DRAIN = Duration.ofHours(1);
        private int receiveCreditMax = 255;
        private int sendCreditTarget = 255;
        private int maxSendSize = 1364;
        private int maxReceiveSize = 8192;
        private int maxFragmentedRecvSize = 1048576;
        private int maxReadWriteSize = 8388608;
        private Duration keepaliveInterval = Duration.ofSeconds(120);
        private Duration keepaliveResponseTimeout = Duration.ofSeconds(5);
        private Duration activeNegotiationTimeout = Duration.ofSeconds(120);
        private Duration passiveNegotiationTimeout = Duration.ofSeconds(5);
        private Duration creditGrantTimeout = Duration.ofSeconds(5);
        private double creditRefillFraction = 0.9;
        private int inboundReadDepth = 8;
        private int outboundReadDepth = 8;
        private int maxConnectionsPerListener = 4096;
        private int maxNegotiatingPerListener = 256;
        private long receiveBufferBudget = 4L << 30;
        private Duration drainTimeout = Duration.ofSeconds(10);

        private Builder() {
        }

        public Builder receiveCreditMax(int v) { receiveCreditMax = v; return this; }
        public Builder sendCreditTarget(int v) { sendCreditTarget = v; return this; }
        public Builder maxSendSize(int v) { maxSendSize = v; return this; }
        public Builder maxReceiveSize(int v) { maxReceiveSize = v; return this; }
        public Builder maxFragmentedRecvSize(int v) { maxFragmentedRecvSize = v; return this; }
        public Builder maxReadWriteSize(int v) { maxReadWriteSize = v; return this; }
        public Builder keepaliveInterval(Duration v) { keepaliveInterval = v; return this; }
        public Builder keepaliveResponseTimeout(Duration v) { keepaliveResponseTimeout = v; return this; }
        public Builder activeNegotiationTimeout(Duration v) { activeNegotiationTimeout = v; return this; }
        public Builder passiveNegotiationTimeout(Duration v) { passiveNegotiationTimeout = v; return this; }
        public Builder creditGrantTimeout(Duration v) { creditGrantTimeout = v; return this; }
        public Builder creditRefillFraction(double v) { creditRefillFraction = v; return this; }
        public Builder inboundReadDepth(int v) { inboundReadDepth = v; return this; }
        public Builder outboundReadDepth(int v) { outboundReadDepth = v; return this; }
        public Builder maxConnectionsPerListener(int v) { maxConnectionsPerListener = v; return this; }
        public Builder maxNegotiatingPerListener(int v) { maxNegotiatingPerListener = v; return this; }
        public Builder receiveBufferBudget(long v) { receiveBufferBudget = v; return this; }
        public Builder drainTimeout(Duration v) { drainTimeout = v; return this; }

        /**
         * Validates every value and builds the settings.
         *
         * @throws SettingsException naming the first refused attribute and its value
         */
        public TransportSettings build() {
            range("receiveCreditMax", receiveCreditMax, 1, 65535, "a credit count is a non-zero 16-bit value");
            range("sendCreditTarget", sendCreditTarget, 1, 65535,
                    "CreditsRequested must be at least 1 (R-3.1.5.6-06, R-3.1.5.8-02) and fit 16 bits");
            range("maxSendSize", maxSendSize, 128, 1 << 20,
                    "a Data Transfer message needs room for the 24-byte header (floor 128, as MaxReceiveSize)");
            range("maxReceiveSize", maxReceiveSize, 128, 1 << 20, "the spec's floor is 128 bytes (R-3.1.5.6-07)");
            range("maxFragmentedRecvSize", maxFragmentedRecvSize, 131072, 1 << 30,
                    "the spec's floor is 131072 bytes (R-3.1.5.6-08)");
            range("maxReadWriteSize", maxReadWriteSize, 4096, 1 << 30, "at least one 4 KiB page");
            positive("keepaliveInterval", keepaliveInterval);
            positive("keepaliveResponseTimeout", keepaliveResponseTimeout);
            positive("activeNegotiationTimeout", activeNegotiationTimeout);
            positive("passiveNegotiationTimeout", passiveNegotiationTimeout);
            if (creditGrantTimeout == null || creditGrantTimeout.isNegative()) {
                throw new SettingsException("creditGrantTimeout", creditGrantTimeout, "must be 0 (off) or positive");
            }
            if (!(creditRefillFraction > 0.0 && creditRefillFraction <= 1.0)) {
                throw new SettingsException("creditRefillFraction", creditRefillFraction, "must be in (0, 1]");
            }
            range("inboundReadDepth", inboundReadDepth, 1, 255, "IRD must be positive (R-6.1-02)");
            range("outboundReadDepth", outboundReadDepth, 1, 255, "ORD must be positive (R-6.1-02)");
            range("maxConnectionsPerListener", maxConnectionsPerListener, 1, 1 << 20, "must be positive");
            range("maxNegotiatingPerListener", maxNegotiatingPerListener, 1, 1 << 20, "must be positive");
            long oneConnection = (long) receiveCreditMax * maxReceiveSize;
            if (receiveBufferBudget < oneConnection) {
                throw new SettingsException("receiveBufferBudget", receiveBufferBudget,
                        "must hold at least one connection's receive buffers (receiveCreditMax x maxReceiveSize = "
                                + oneConnection + ")");
            }
            if (drainTimeout == null || drainTimeout.isNegative() || drainTimeout.compareTo(MAX_DRAIN) > 0) {
                throw new SettingsException("drainTimeout", drainTimeout,
                        "must be in [0, " + MAX_DRAIN.toSeconds() + "] seconds (0: close at once)");
            }
            return new TransportSettings(this);
        }

        private static void range(String attribute, long value, long min, long max, String why) {
            if (value < min || value > max) {
                throw new SettingsException(attribute, value, "must be in [" + min + ", " + max + "]: " + why);
            }
        }

        private static void positive(String attribute, Duration value) {
            if (value == null || value.isZero() || value.isNegative()) {
                throw new SettingsException(attribute, value, "must be a positive duration");
            }
        }
    }
}
