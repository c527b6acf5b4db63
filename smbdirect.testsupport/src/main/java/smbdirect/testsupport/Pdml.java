package smbdirect.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * tshark's PDML output (the full dissection of a capture) read into packets, each a list of its
 * top-level protocol layers in wire order, each layer with all its fields (nested ones flattened in
 * document order). Expert items and malformed markers are fields and layers like any other.
 * Static, thread-safe.
 */
public final class Pdml {

    /** Expert severity values of Wireshark ({@code _ws.expert.severity}). */
    public static final long SEVERITY_WARN = 0x600000;
    public static final long SEVERITY_ERROR = 0x800000;

    private Pdml() {
    }

    /** One field: its name, its displayed value ({@code show}), raw bytes ({@code value}, hex) and text. */
    public record Field(String name, String show, String value, String showname, int size) {

        /** The displayed value as a number (decimal, or hexadecimal after {@code 0x}). */
        public long number() {
            return show.startsWith("0x") ? Long.parseUnsignedLong(show.substring(2), 16) : Long.parseUnsignedLong(show);
        }

        /** Whether a flag field is set. */
        public boolean flag() {
            return "1".equals(show) || "True".equals(show);
        }

        /** The raw bytes of the field. */
        public byte[] bytes() {
            return value == null ? new byte[0] : HexFormat.of().parseHex(value);
        }
    }

    /** One protocol layer ({@code proto} element) with its fields. */
    public record Layer(String name, int size, List<Field> fields) {

        /** The first field of that name, or null. */
        public Field field(String fieldName) {
            for (Field f : fields) {
                if (f.name().equals(fieldName)) {
                    return f;
                }
            }
            return null;
        }

        /** Whether a field of that name is present. */
        public boolean has(String fieldName) {
            return field(fieldName) != null;
        }

        /** The first field of that name as a number; fails when there is none. */
        public long number(String fieldName) {
            Field f = field(fieldName);
            if (f == null) {
                throw new AssertionError(name + " has no field " + fieldName + ": " + fields);
            }
            return f.number();
        }

        /** Every field of that name, in document order. */
        public List<Field> all(String fieldName) {
            List<Field> out = new ArrayList<>();
            for (Field f : fields) {
                if (f.name().equals(fieldName)) {
                    out.add(f);
                }
            }
            return out;
        }
    }

    /** One frame. */
    public record Packet(int number, List<Layer> layers) {

        /** The first layer of that name, or null. */
        public Layer layer(String name) {
            for (Layer l : layers) {
                if (l.name().equals(name)) {
                    return l;
                }
            }
            return null;
        }

        /** Every field of every layer with that name. */
        public List<Field> all(String fieldName) {
            List<Field> out = new ArrayList<>();
            for (Layer l : layers) {
                out.addAll(l.all(fieldName));
            }
            return out;
        }
    }

    /** Reads a PDML file. */
    public static List<Packet> read(Path file) throws IOException {
        XMLInputFactory factory = XMLInputFactory.newFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        List<Packet> packets = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            XMLStreamReader r = factory.createXMLStreamReader(in);
            List<Layer> layers = null;
            List<Field> fields = null;
            int depth = 0;
            while (r.hasNext()) {
                int event = r.next();
                if (event == XMLStreamConstants.START_ELEMENT) {
                    depth++;
                    String element = r.getLocalName();
                    if (element.equals("packet")) {
                        layers = new ArrayList<>();
                    } else if (element.equals("proto") && depth == 3) {
                        fields = new ArrayList<>();
                        layers.add(new Layer(r.getAttributeValue(null, "name"), size(r), fields));
                    } else if ((element.equals("field") || element.equals("proto")) && fields != null) {
                        String name = r.getAttributeValue(null, "name");
                        if (name != null && !name.isEmpty()) {
                            fields.add(new Field(name, String.valueOf(r.getAttributeValue(null, "show")),
                                    r.getAttributeValue(null, "value"), r.getAttributeValue(null, "showname"), size(r)));
                        }
                    }
                } else if (event == XMLStreamConstants.END_ELEMENT) {
                    if (r.getLocalName().equals("packet")) {
                        int number = (int) layers.get(layers.get(0).name().equals("geninfo") ? 0 : 1)
                                .number("num");
                        packets.add(new Packet(number, List.copyOf(layers)));
                        layers = null;
                    } else if (r.getLocalName().equals("proto") && depth == 3) {
                        fields = null;
                    }
                    depth--;
                }
            }
            r.close();
        } catch (XMLStreamException e) {
            throw new IOException("reading PDML " + file + " failed: " + e.getMessage(), e);
        }
        return packets;
    }

    private static int size(XMLStreamReader r) {
        String s = r.getAttributeValue(null, "size");
        return s == null ? -1 : Integer.parseInt(s);
    }
}
