package smbdirect.interop.vm;

import java.io.ByteArrayOutputStream;
import java.util.HexFormat;

/**
 * The bytes of one TCP connection in each direction, as tshark's {@code -z follow,tcp,raw} prints
 * them (lines of hex; the second node's lines are indented by a tab).
 *
 * @param node0 the address of the side that sent first (tshark's "Node 0"), {@code host:port}
 * @param node1 the other side
 * @param from0 every byte node 0 sent, in order
 * @param from1 every byte node 1 sent
 */
public record TcpStream(String node0, String node1, byte[] from0, byte[] from1) {

    static TcpStream parse(String follow) {
        String n0 = "";
        String n1 = "";
        ByteArrayOutputStream a = new ByteArrayOutputStream();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        HexFormat hex = HexFormat.of();
        for (String line : follow.split("\\n")) {
            if (line.startsWith("Node 0: ")) {
                n0 = line.substring(8).strip();
            } else if (line.startsWith("Node 1: ")) {
                n1 = line.substring(8).strip();
            } else if (line.matches("\\t?[0-9a-f]+\\s*")) {
                byte[] bytes = hex.parseHex(line.strip());
                (line.startsWith("\t") ? b : a).writeBytes(bytes);
            }
        }
        return new TcpStream(n0, n1, a.toByteArray(), b.toByteArray());
    }

    /** The port of {@code node} ({@code host:port}). */
    public static int port(String node) {
        return Integer.parseInt(node.substring(node.lastIndexOf(':') + 1));
    }

    /** The bytes sent by the side on {@code port}. */
    public byte[] sentBy(int port) {
        if (port(node0) == port) {
            return from0;
        }
        if (port(node1) == port) {
            return from1;
        }
        throw new IllegalArgumentException("port " + port + " is neither " + node0 + " nor " + node1);
    }
}
