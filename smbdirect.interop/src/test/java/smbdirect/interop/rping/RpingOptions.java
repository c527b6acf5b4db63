package smbdirect.interop.rping;

import java.time.Duration;
import java.util.Objects;

/**
 * What rping's command line sets for one side.
 *
 * @param count iterations the client runs ({@code -C}); the server serves until the client disconnects
 * @param size ping data size in bytes ({@code -S}, default 64); the server's buffer size
 * @param validate whether the client compares the echoed sink with its source ({@code -V})
 * @param firstSendDelay how long the client waits after the connection is established before its
 *     first Send (zero for rping's behaviour). Linux siw 6.1 as responder can leave an FPDU that
 *     arrives right after its MPA Reply unread (tools/siw-vm/PROOF.md, "siw accept race").
 */
public record RpingOptions(int count, int size, boolean validate, Duration firstSendDelay) {

    public RpingOptions {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative: " + count);
        }
        if (size < Rping.MIN_SIZE || size > Rping.MAX_SIZE) {
            throw new IllegalArgumentException("size must be " + Rping.MIN_SIZE + ".." + Rping.MAX_SIZE + ": " + size);
        }
        Objects.requireNonNull(firstSendDelay, "firstSendDelay");
        if (firstSendDelay.isNegative()) {
            throw new IllegalArgumentException("firstSendDelay must not be negative: " + firstSendDelay);
        }
    }

    /** {@code rping -C count -V} with the default size and no delay. */
    public static RpingOptions of(int count) {
        return new RpingOptions(count, Rping.DEFAULT_SIZE, true, Duration.ZERO);
    }

    /** The same with another ping data size. */
    public RpingOptions withSize(int value) {
        return new RpingOptions(count, value, validate, firstSendDelay);
    }

    /** The same with a pause before the client's first Send. */
    public RpingOptions withFirstSendDelay(Duration value) {
        return new RpingOptions(count, size, validate, value);
    }
}
