package smbdirect.impl.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The naming rule of the README's code map, over the Java sources of every module of the repository:
 * a Metatype-annotated type that Configuration Admin fills is an {@code XxxConfiguration}, and no
 * type is named with {@code Config} alone (the checked values are {@code XxxSettings}).
 */
class ConfigurationNamesTest {

    /** The repository: the parent of this module's directory, where the tests run. */
    private static final Path ROOT = Path.of("..");

    private static final Pattern DECLARATION = Pattern.compile(
            "^[\\w\\s@]*?\\b(?:class|interface|@interface|record|enum)\\s+(\\w+)", Pattern.MULTILINE);

    private static final Pattern OCD = Pattern.compile(
            "@ObjectClassDefinition\\b[\\s\\S]*?\\b(?:@interface|interface)\\s+(\\w+)");

    private static List<Path> sources() throws IOException {
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(ROOT)) {
            for (Path module : modules.filter(p -> p.getFileName().toString().startsWith("smbdirect."))
                    .filter(Files::isDirectory).sorted().toList()) {
                Path src = module.resolve("src");
                if (!Files.isDirectory(src)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(src)) {
                    files.filter(p -> p.toString().endsWith(".java")).forEach(sources::add);
                }
            }
        }
        assertTrue(sources.size() > 100, "the sources of the repository's modules are found: " + sources.size());
        return sources;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void noTypeIsNamedWithConfigAlone() throws IOException {
        Pattern config = Pattern.compile("Config(?![a-z])");
        List<String> found = new ArrayList<>();
        for (Path file : sources()) {
            Matcher m = DECLARATION.matcher(read(file));
            while (m.find()) {
                if (config.matcher(m.group(1)).find()) {
                    found.add(m.group(1) + " in " + ROOT.relativize(file));
                }
            }
        }
        assertEquals(List.of(), found);
    }

    @Test
    void everyMetatypeDefinitionIsAnXxxConfiguration() throws IOException {
        List<String> definitions = new ArrayList<>();
        List<String> misnamed = new ArrayList<>();
        for (Path file : sources()) {
            String text = read(file);
            if (!text.contains("import org.osgi.service.metatype.annotations.ObjectClassDefinition;")
                    && !text.contains("import org.osgi.service.metatype.annotations.*;")) {
                continue;
            }
            Matcher m = OCD.matcher(text);
            while (m.find()) {
                definitions.add(m.group(1));
                if (!m.group(1).endsWith("Configuration")) {
                    misnamed.add(m.group(1) + " in " + ROOT.relativize(file));
                }
            }
        }
        assertTrue(definitions.containsAll(List.of("TransportConfiguration", "ListenerConfiguration")), definitions
                .toString());
        assertEquals(List.of(), misnamed);
    }
}
