package smbdirect.interop.fileserver;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import smbdirect.api.CloseReason;

/**
 * The connections one cifs mount made to the server, in the order they were accepted, and why each
 * ended: judged against the one way cifs is known to lose a connection to a correct server. cifs
 * (seen on 6.12, on siw0 and rxe0, about one boot in four) sends an empty message between the
 * fragments of one upper-layer message; the server ends that connection as [MS-SMBD] 3.1.5.8 says
 * (R-3.1.5.8-18, our digest's A-27, peer lesson 4) and cifs reconnects, so the mount goes on over a
 * second connection. Any other way of ending before the unmount is a failure.
 *
 * @param tag the mount
 * @param reasons why each of its connections ended, in order; {@code null} for one still open
 */
public record MountConnections(String tag, List<CloseReason> reasons) {

    /** At most this many of one mount's connections may end for cifs's interleaved empty message. */
    public static final int MOST_RECONNECTS = 2;

    public MountConnections {
        reasons = Collections.unmodifiableList(new ArrayList<>(reasons));
    }

    /**
     * Whether {@code reason} is the server's answer to an empty message (DataLength 0, RemainingDataLength
     * 0) arriving while a fragmented message was being reassembled.
     */
    public static boolean interleavedEmptyMessage(CloseReason reason) {
        return reason != null && reason.kind() == CloseReason.Kind.PROTOCOL_VIOLATION
                && "R-3.1.5.8-18".equals(reason.rule())
                && reason.detail().startsWith("final fragment (RemainingDataLength 0) with DataLength 0 while ");
    }

    /**
     * The number of this mount's connections that cifs replaced after the server ended them for an
     * interleaved empty message.
     *
     * @throws AssertionError when the mount made no connection, when one is still open, when one
     *     but the last ended any other way, when the last ended for a protocol violation (cifs would
     *     have reconnected), or when more than {@link #MOST_RECONNECTS} were replaced
     */
    public int reconnects(String where) {
        if (reasons.isEmpty()) {
            throw new AssertionError(tag + where + ": the mount made no connection to the server");
        }
        for (int i = 0; i < reasons.size(); i++) {
            CloseReason r = reasons.get(i);
            if (r == null) {
                throw new AssertionError(tag + where + ": connection " + (i + 1) + " of " + reasons.size()
                        + " still open after the unmount: " + reasons);
            }
            boolean last = i == reasons.size() - 1;
            if (!last && !interleavedEmptyMessage(r)) {
                throw new AssertionError(tag + where + ": connection " + (i + 1) + " of " + reasons.size()
                        + " ended before the unmount for another reason than cifs's interleaved empty message: " + r);
            }
            if (last && r.kind() == CloseReason.Kind.PROTOCOL_VIOLATION) {
                throw new AssertionError(tag + where + ": the mount's last connection ended for a protocol violation: "
                        + r);
            }
        }
        int replaced = reasons.size() - 1;
        if (replaced > MOST_RECONNECTS) {
            throw new AssertionError(tag + where + ": " + replaced + " connections ended for an interleaved empty message"
                    + " (at most " + MOST_RECONNECTS + " taken for cifs's known defect): " + reasons);
        }
        return replaced;
    }
}
