package smbdirect.interop.vm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * Reads tshark's PDML (XML) into {@link CapturedPdu}s: within each packet, every {@code iwarp_mpa}
 * protocol starts a PDU and the DDP/RDMAP, SMB Direct and SMB2 protocols after it belong to it.
 * Static, thread-safe.
 */
final class Pdml {

    private Pdml() {
    }

    /** A PDU being collected. */
    private static final class Pdu {
        final int frame;
        final int stream;
        final int srcPort;
        final int dstPort;
        CapturedPdu.Kind kind = CapturedPdu.Kind.FPDU;
        final Map<String, String> fields = new LinkedHashMap<>();
        final Map<String, String> values = new LinkedHashMap<>();
        String crc = "none";
        final List<String> problems = new ArrayList<>();

        Pdu(int frame, int stream, int srcPort, int dstPort) {
            this.frame = frame;
            this.stream = stream;
            this.srcPort = srcPort;
            this.dstPort = dstPort;
        }

        CapturedPdu build() {
            return new CapturedPdu(frame, stream, srcPort, dstPort, kind, fields, values, crc, problems);
        }
    }

    static List<CapturedPdu> parse(Path pdml) throws IOException {
        Element root;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            root = f.newDocumentBuilder().parse(pdml.toFile()).getDocumentElement();
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("tshark's PDML in " + pdml + " does not parse: " + e.getMessage(), e);
        }
        List<CapturedPdu> out = new ArrayList<>();
        for (Element packet : children(root, "packet")) {
            Map<String, String> head = new LinkedHashMap<>();
            Pdu current = null;
            for (Element proto : children(packet, "proto")) {
                String name = proto.getAttribute("name");
                switch (name) {
                    case "geninfo", "frame", "eth", "ip", "ipv6", "sll" -> collect(proto, head, new LinkedHashMap<>(), null);
                    case "tcp" -> collect(proto, head, new LinkedHashMap<>(), null);
                    case "fake-field-wrapper" -> {
                        // TCP reassembly bookkeeping (the segments a PDU came in), before or after PDUs
                    }
                    case "iwarp_mpa" -> {
                        if (current != null) {
                            out.add(current.build());
                        }
                        current = new Pdu(Integer.parseInt(head.getOrDefault("num", "0")),
                                Integer.parseInt(head.getOrDefault("tcp.stream", "-1")),
                                Integer.parseInt(head.getOrDefault("tcp.srcport", "0")),
                                Integer.parseInt(head.getOrDefault("tcp.dstport", "0")));
                        collect(proto, current.fields, current.values, current.problems);
                        if (current.fields.containsKey("iwarp_mpa.req")) {
                            current.kind = CapturedPdu.Kind.MPA_REQUEST;
                        } else if (current.fields.containsKey("iwarp_mpa.rep")) {
                            current.kind = CapturedPdu.Kind.MPA_REPLY;
                        }
                        String check = showname(proto, "iwarp_mpa.crc_check");
                        if (check != null) {
                            current.crc = check.contains("Good CRC32") ? "good" : check.contains("Bad CRC32") ? "bad"
                                    : "unknown: " + check;
                        }
                    }
                    default -> {
                        if (current == null) {
                            // a packet Wireshark found malformed (or decoded otherwise) before any MPA PDU
                            current = new Pdu(Integer.parseInt(head.getOrDefault("num", "0")),
                                    Integer.parseInt(head.getOrDefault("tcp.stream", "-1")),
                                    Integer.parseInt(head.getOrDefault("tcp.srcport", "0")),
                                    Integer.parseInt(head.getOrDefault("tcp.dstport", "0")));
                            current.problems.add("no MPA PDU before " + name);
                        }
                        if (name.startsWith("_ws.malformed")) {
                            current.problems.add(name + ": " + proto.getAttribute("showname"));
                        }
                        collect(proto, current.fields, current.values, current.problems);
                    }
                }
            }
            if (current != null) {
                out.add(current.build());
            }
        }
        return out;
    }

    /**
     * Adds every field under {@code e} (first occurrence wins); expert items go to {@code problems},
     * each prefixed with the innermost protocol it sits in ({@code "spnego: ..."}).
     */
    private static void collect(Element e, Map<String, String> shown, Map<String, String> values, List<String> problems) {
        collect(e, e.getAttribute("name"), shown, values, problems);
    }

    private static void collect(Element e, String proto, Map<String, String> shown, Map<String, String> values,
            List<String> problems) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c) {
                String name = c.getAttribute("name");
                String inner = c.getTagName().equals("proto") && !name.startsWith("_ws.") ? name : proto;
                if (!name.isEmpty()) {
                    if (problems != null && (name.equals("_ws.expert") || name.startsWith("_ws.malformed"))) {
                        problems.add(proto + ": " + c.getAttribute("showname"));
                    }
                    shown.putIfAbsent(name, c.getAttribute("show"));
                    if (c.hasAttribute("value")) {
                        values.putIfAbsent(name, c.getAttribute("value"));
                    }
                }
                collect(c, inner, shown, values, problems);
            }
        }
    }

    private static String showname(Element e, String field) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c) {
                if (field.equals(c.getAttribute("name"))) {
                    return c.getAttribute("showname");
                }
                String inner = showname(c, field);
                if (inner != null) {
                    return inner;
                }
            }
        }
        return null;
    }

    private static List<Element> children(Element e, String tag) {
        List<Element> out = new ArrayList<>();
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(tag)) {
                out.add(c);
            }
        }
        return out;
    }
}
