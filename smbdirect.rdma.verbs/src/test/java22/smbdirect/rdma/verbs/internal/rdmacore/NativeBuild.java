package smbdirect.rdma.verbs.internal.rdmacore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import smbdirect.testsupport.Judges;

/**
 * Compiles the tests' C sources ({@code src/test/c}) with gcc against rdma-core's headers, into
 * {@code target/native-test}. The headers are looked for where gcc looks ({@code /usr/include}, then
 * {@code CPATH}). Without gcc or the headers the calling test aborts with one line
 * naming the packages (gcc, libibverbs-dev, librdmacm-dev).
 */
final class NativeBuild {

    static final Path SOURCES = Path.of("src", "test", "c");
    static final Path OUT = Path.of("target", "native-test");

    private NativeBuild() {
    }

    /** Compiles {@code source} (a file in src/test/c) to {@code output} with gcc and {@code flags}; returns the output. */
    static synchronized Path compile(String source, String output, String... flags) throws IOException,
            InterruptedException {
        for (String header : List.of("infiniband/verbs.h", "rdma/rdma_cma.h")) {
            if (includeDirectories().stream().noneMatch(d -> Files.exists(d.resolve(header)))) {
                throw Judges.missing("the rdma-core backend's native tests need rdma-core's headers: " + header + " is "
                        + "missing from " + includeDirectories() + " (apt-get install gcc libibverbs-dev librdmacm-dev)");
            }
        }
        Path src = SOURCES.resolve(source).toAbsolutePath();
        Path out = OUT.resolve(output).toAbsolutePath();
        Files.createDirectories(out.getParent());
        if (Files.exists(out) && Files.getLastModifiedTime(out).compareTo(Files.getLastModifiedTime(src)) > 0) {
            return out;
        }
        List<String> command = new ArrayList<>(List.of("gcc", "-Wall", "-Werror", "-O1"));
        command.addAll(List.of(flags));
        command.addAll(List.of("-o", out.toString(), src.toString()));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw Judges.missing("the rdma-core backend's native tests need gcc (apt-get install gcc libibverbs-dev librdmacm-dev): "
                    + e.getMessage());
        }
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("gcc failed on " + src + ": " + String.join(" ", command) + "\n" + log);
        }
        return out;
    }

    /** Where gcc looks for the headers: /usr/include and the directories of the CPATH environment variable. */
    static List<Path> includeDirectories() {
        List<Path> dirs = new ArrayList<>(List.of(Path.of("/usr/include")));
        String cpath = System.getenv("CPATH");
        if (cpath != null) {
            for (String d : cpath.split(":")) {
                if (!d.isEmpty()) {
                    dirs.add(Path.of(d));
                }
            }
        }
        return dirs;
    }

    /** Runs {@code program} and returns its standard output lines. */
    static List<String> run(Path program) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(program.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(program + " failed: " + out);
        }
        return out.lines().toList();
    }
}
