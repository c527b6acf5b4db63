package smbdirect.rdma.verbs.internal.rdmacore;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import smbdirect.rdma.verbs.internal.NativeCallException;
import smbdirect.rdma.verbs.internal.VerbsBackend.CmConnParam;

/** The C structs the CM calls take and give: {@code sockaddr_in}/{@code sockaddr_in6}, {@code rdma_conn_param}. */
final class CmStructs {

    private CmStructs() {
    }

    /** A sockaddr_in or sockaddr_in6 in {@code a}. */
    static MemorySegment sockaddr(Arena a, InetSocketAddress address) throws NativeCallException {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw Natives.refused("sockaddr", Abi.EINVAL, address + " is not resolved");
        }
        if (ip instanceof Inet4Address) {
            MemorySegment sa = a.allocate(Abi.SOCKADDR_IN);
            sa.set(JAVA_SHORT, Abi.SIN_FAMILY, (short) Abi.AF_INET);
            sa.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Abi.SIN_PORT, (short) address.getPort());
            MemorySegment.copy(ip.getAddress(), 0, sa, JAVA_BYTE, Abi.SIN_ADDR, 4);
            return sa;
        }
        Inet6Address v6 = (Inet6Address) ip;
        MemorySegment sa = a.allocate(Abi.SOCKADDR_IN6);
        sa.set(JAVA_SHORT, 0, (short) Abi.AF_INET6);
        sa.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Abi.SIN6_PORT, (short) address.getPort());
        sa.set(JAVA_INT, Abi.SIN6_FLOWINFO, 0);
        MemorySegment.copy(v6.getAddress(), 0, sa, JAVA_BYTE, Abi.SIN6_ADDR, 16);
        sa.set(JAVA_INT, Abi.SIN6_SCOPE_ID, v6.getScopeId());
        return sa;
    }

    /** The address in a sockaddr_storage; {@code null} for a family other than AF_INET / AF_INET6. */
    static InetSocketAddress inet(MemorySegment storage) {
        int family = Short.toUnsignedInt(storage.get(JAVA_SHORT, 0));
        try {
            if (family == Abi.AF_INET) {
                int port = Short.toUnsignedInt(storage.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Abi.SIN_PORT));
                byte[] ip = storage.asSlice(Abi.SIN_ADDR, 4).toArray(JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            if (family == Abi.AF_INET6) {
                int port = Short.toUnsignedInt(storage.get(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), Abi.SIN6_PORT));
                byte[] ip = storage.asSlice(Abi.SIN6_ADDR, 16).toArray(JAVA_BYTE);
                int scope = storage.get(JAVA_INT, Abi.SIN6_SCOPE_ID);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, scope), port);
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        return null;
    }

    /** A struct rdma_conn_param in {@code a}: private data copied, IRD/ORD as given (at most 255). */
    static MemorySegment connParam(Arena a, CmConnParam p) {
        MemorySegment param = a.allocate(Abi.RDMA_CONN_PARAM);
        ByteBuffer data = p.privateData();
        if (data.hasRemaining()) {
            MemorySegment copy = a.allocate(data.remaining());
            copy.copyFrom(MemorySegment.ofBuffer(data.duplicate()));
            param.set(ADDRESS, Abi.CONN_PARAM_PRIVATE_DATA, copy);
            param.set(JAVA_BYTE, Abi.CONN_PARAM_PRIVATE_DATA_LEN, (byte) data.remaining());
        }
        param.set(JAVA_BYTE, Abi.CONN_PARAM_RESPONDER_RESOURCES, (byte) Math.min(255, p.responderResources()));
        param.set(JAVA_BYTE, Abi.CONN_PARAM_INITIATOR_DEPTH, (byte) Math.min(255, p.initiatorDepth()));
        param.set(JAVA_BYTE, Abi.CONN_PARAM_RETRY_COUNT, (byte) p.retryCount());
        param.set(JAVA_BYTE, Abi.CONN_PARAM_RNR_RETRY_COUNT, (byte) p.rnrRetryCount());
        return param;
    }
}
