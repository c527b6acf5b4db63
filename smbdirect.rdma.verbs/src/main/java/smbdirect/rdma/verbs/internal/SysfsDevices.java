package smbdirect.rdma.verbs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import smbdirect.api.rdma.TransportType;

/**
 * What the kernel tells about RDMA devices under {@code /sys/class/infiniband}: DiSNI 2.0 has no
 * device list, no {@code ibv_query_device} and no {@code ibv_query_port}, so the transport type
 * and the network interface of a device come from sysfs.
 *
 * <p>Transport heuristic: {@code node_type} "4: RNIC" is iWARP; a channel adapter ("1: CA") whose
 * port {@code link_layer} is "Ethernet" is RoCE, "InfiniBand" is InfiniBand. The network
 * interfaces of a device are the entries of {@code device/net/} (PCI devices), else the names in
 * {@code ports/N/gid_attrs/ndevs/0} (the GID table's network device: RoCE, rxe), else, for an
 * iWARP device, whose GID table has no network device (the kernel fills {@code gid_attrs} for RoCE
 * only; siw has no {@code device/} either), the interfaces whose MAC address is the port's GID 0:
 * iWARP drivers make it the MAC of their interface followed by zeros (siw, iw_cxgb4, irdma).
 * Immutable; reads the files on every call.
 */
public final class SysfsDevices {

    private final Path root;

    /** @param root normally {@code /sys/class/infiniband} */
    public SysfsDevices(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    /** The device names, sorted; empty when the directory is missing. */
    public List<String> devices() {
        List<String> names = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return names;
        }
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(root)) {
            for (Path p : dir) {
                names.add(p.getFileName().toString());
            }
        } catch (IOException e) {
            return names;
        }
        Collections.sort(names);
        return names;
    }

    /** The transport of {@code device}, or {@code null} when sysfs does not say. */
    public TransportType transportType(String device) {
        Path dir = root.resolve(device);
        String nodeType = read(dir.resolve("node_type"));
        if (nodeType == null) {
            return null;
        }
        String n = nodeType.toUpperCase(Locale.ROOT);
        if (n.startsWith("4") || n.contains("RNIC")) {
            return TransportType.IWARP;
        }
        for (String port : list(dir.resolve("ports"))) {
            String linkLayer = read(dir.resolve("ports").resolve(port).resolve("link_layer"));
            if (linkLayer != null) {
                return linkLayer.equalsIgnoreCase("Ethernet") ? TransportType.ROCE : TransportType.INFINIBAND;
            }
        }
        return n.startsWith("1") || n.contains("CA") ? TransportType.INFINIBAND : null;
    }

    /** The network interfaces bound to {@code device} (may be empty). */
    public List<String> netDevices(String device) {
        Path dir = root.resolve(device);
        List<String> names = new ArrayList<>(list(dir.resolve("device").resolve("net")));
        for (String port : list(dir.resolve("ports"))) {
            String ndev = read(dir.resolve("ports").resolve(port).resolve("gid_attrs").resolve("ndevs").resolve("0"));
            if (ndev != null && !ndev.isEmpty() && !names.contains(ndev)) {
                names.add(ndev);
            }
        }
        if (names.isEmpty()) {
            for (String port : list(dir.resolve("ports"))) {
                String mac = macOfGid(read(dir.resolve("ports").resolve(port).resolve("gids").resolve("0")));
                if (mac != null) {
                    for (String ndev : interfacesWithMac(mac)) {
                        if (!names.contains(ndev)) {
                            names.add(ndev);
                        }
                    }
                }
            }
        }
        return names;
    }

    /**
     * The MAC address in a GID as iWARP drivers fill it ("5254:0012:3456:0000:0000:0000:0000:0000" is
     * 52:54:00:12:34:56), {@code null} when the GID is not a MAC followed by zeros.
     */
    static String macOfGid(String gid) {
        if (gid == null) {
            return null;
        }
        String hex = gid.replace(":", "");
        if (!hex.matches("[0-9a-fA-F]{32}") || !hex.substring(12).matches("0+") || hex.substring(0, 12).matches("0+")) {
            return null;
        }
        StringBuilder mac = new StringBuilder();
        for (int i = 0; i < 12; i += 2) {
            mac.append(i == 0 ? "" : ":").append(hex, i, i + 2);
        }
        return mac.toString().toLowerCase(Locale.ROOT);
    }

    /** The network interfaces under {@code <root>/../net} whose {@code address} is {@code mac}, sorted. */
    private List<String> interfacesWithMac(String mac) {
        Path net = root.toAbsolutePath().getParent() == null ? null : root.toAbsolutePath().getParent().resolve("net");
        List<String> found = new ArrayList<>();
        if (net == null) {
            return found;
        }
        for (String name : list(net)) {
            String address = read(net.resolve(name).resolve("address"));
            if (address != null && address.equalsIgnoreCase(mac)) {
                found.add(name);
            }
        }
        return found;
    }

    private static List<String> list(Path dir) {
        List<String> names = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return names;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path p : stream) {
                names.add(p.getFileName().toString());
            }
        } catch (IOException e) {
            return names;
        }
        Collections.sort(names);
        return names;
    }

    /** {@code ports/PORT/state} of {@code device} ("4: ACTIVE", "1: DOWN"), null when it cannot be read. */
    public String portState(String device, int port) {
        return read(root.resolve(device).resolve("ports").resolve(Integer.toString(port)).resolve("state"));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            return null;
        }
    }
}
