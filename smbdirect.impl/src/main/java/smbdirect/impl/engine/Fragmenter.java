package smbdirect.impl.engine;

import java.nio.ByteBuffer;

import smbdirect.impl.wire.DataTransfer;
import smbdirect.impl.wire.SmbdWire;

/**
 * Builds one Data Transfer message ([MS-SMBD] 3.1.5.4) in a send slot: the next segment of an
 * upper-layer message at DataOffset 24 (R-3.1.5.4-12) with DataLength = min(bytes left, MaxSendSize
 * - 24) (R-3.1.5.4-13) and RemainingDataLength = bytes still to follow (R-3.1.5.4-15), or the
 * 20-byte empty message (R-3.1.5.4-03..07). The payload is copied once, into the registered slot.
 *
 * <p>Stateless and allocation-free.
 */
final class Fragmenter {

    private Fragmenter() {
    }

    /**
     * Encodes the next message of {@code head} (or an empty message when {@code head} is null) at
     * {@code offset} of {@code slot} and advances {@code head}'s cursor.
     *
     * @return the message length in bytes
     */
    static int next(ByteBuffer slot, int offset, int maxSendSize, OutMessage head, int creditsRequested,
            int creditsGranted, int flags) {
        int payload = 0;
        long remainingAfter = 0;
        if (head != null) {
            payload = Math.min(head.unsent(), maxSendSize - SmbdWire.DATA_OFFSET);
            remainingAfter = head.unsent() - payload;
        }
        int header = DataTransfer.encodeHeader(slot, offset, creditsRequested, creditsGranted, flags,
                remainingAfter, payload > 0 ? SmbdWire.DATA_OFFSET : 0, payload);
        if (payload > 0) {
            // R-3.1.5.4-18: exactly DataLength bytes of the message
            slot.put(offset + header, head.message, head.message.position() + head.sent, payload);
            head.sent += payload;
        }
        return header + payload;
    }
}
