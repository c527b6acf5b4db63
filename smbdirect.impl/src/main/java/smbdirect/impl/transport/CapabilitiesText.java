package smbdirect.impl.transport;

import java.util.Locale;

import smbdirect.api.rdma.RdmaCapabilities;

/**
 * An RDMA provider's capabilities in words with units, as the runtime DTO, the shell and the Web
 * Console show them, e.g. "send queue 4096 work requests, receive queue 4096 work requests, 16
 * scatter/gather entries, 256 B inline, messages up to 1 GiB, RDMA Reads 16 in (IRD) / 16 out (ORD),
 * registrations up to 4 GiB, Send with Invalidate". Stateless.
 */
public final class CapabilitiesText {

    private CapabilitiesText() {
    }

    /** The capabilities in words; "(not reported)" for {@code null}. */
    public static String describe(RdmaCapabilities c) {
        if (c == null) {
            return "(not reported)";
        }
        return String.format(Locale.ROOT,
                "send queue %d work requests, receive queue %d work requests, %d scatter/gather %s, %s inline,"
                        + " messages up to %s, RDMA Reads %d in (IRD) / %d out (ORD), registrations up to %s, %s",
                c.maxSendWorkRequests(), c.maxReceiveWorkRequests(), c.maxSge(), c.maxSge() == 1 ? "entry" : "entries",
                bytes(c.maxInlineData()), bytes(Integer.toUnsignedLong(c.maxMessageSize())), c.maxInboundReadDepth(),
                c.maxOutboundReadDepth(), bytes(c.maxRegionSize()),
                c.sendWithInvalidate() ? c.remoteInvalidation() ? "Send with Invalidate"
                        : "Send with Invalidate (posting only: a peer's does not invalidate our memory)"
                        : c.remoteInvalidation() ? "no Send with Invalidate (a peer's invalidates our memory)"
                                : "no Send with Invalidate");
    }

    /**
     * A byte count in binary units when it is a whole number of them (1 GiB, 64 KiB), else in bytes
     * with thousands separators (1,364 B).
     */
    public static String bytes(long n) {
        String[] units = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
        if (n >= 1024) {
            long v = n;
            int u = -1;
            while (v >= 1024 && v % 1024 == 0 && u < units.length - 1) {
                v /= 1024;
                u++;
            }
            if (u >= 0) {
                return String.format(Locale.ROOT, "%,d %s", v, units[u]);
            }
        }
        return String.format(Locale.ROOT, "%,d B", n);
    }
}
