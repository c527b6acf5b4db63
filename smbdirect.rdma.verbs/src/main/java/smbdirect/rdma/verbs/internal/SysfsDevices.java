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
 * interfaces of a device are the entries of {@code device/net/} (PCI devices) and the names in
 * {@code ports/N/gid_attrs/ndevs/0} (RoCE, software devices such as rxe/siw). Immutable; reads
 * the files on every call.
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
        return names;
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

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            return null;
        }
    }
}
