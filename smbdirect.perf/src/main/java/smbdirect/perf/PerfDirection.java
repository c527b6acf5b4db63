package smbdirect.perf;

import java.util.Locale;

/** What a perf run measures. */
public enum PerfDirection {
    /** The client streams messages to the server (the server counts them). */
    SEND,
    /** The server streams messages to the client. */
    RECEIVE,
    /** The client sends, the server echoes each message back; latency is the round trip. */
    PINGPONG,
    /**
     * The client RDMA Writes its registered buffer into one the server registered for it (as
     * {@code ib_write_bw} does for verbs); the server checks what arrived at the end.
     */
    WRITE,
    /**
     * The client RDMA Reads the server's registered buffer into its own (as {@code ib_read_bw}
     * does); the client checks what arrived at the end.
     */
    READ;

    /** Parses {@code send}, {@code receive}, {@code pingpong}, {@code write} or {@code read} (case-insensitive). */
    public static PerfDirection parse(String text) {
        for (PerfDirection d : values()) {
            if (d.name().equalsIgnoreCase(text)) {
                return d;
            }
        }
        throw new IllegalArgumentException("--direction must be send, receive, pingpong, write or read, not '" + text
                + "'");
    }

    /** Whether the run moves its bytes by RDMA Write or Read rather than by messages. */
    public boolean isRdma() {
        return this == WRITE || this == READ;
    }

    /** The option value. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
