package smbdirect.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The README's "Maven coordinates, versions and javadoc" says what the build makes: the Maven version
 * of its dependency snippets is the project's, and each package version in its table is the one the
 * package's {@code package-info.java} exports.
 */
class ReadmeCoordinatesTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void theDependencySnippetsNameTheProjectsVersion() throws Exception {
        Matcher pom = Pattern.compile("<artifactId>smbdirect.parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertTrue(pom.find(), "the parent's version");
        String version = pom.group(1);
        String readme = Files.readString(ROOT.resolve("README.md"));
        Matcher m = Pattern.compile("<artifactId>(smbdirect\\.[\\w.]+)</artifactId><version>([^<]+)</version>")
                .matcher(readme);
        int snippets = 0;
        while (m.find()) {
            snippets++;
            assertEquals(version, m.group(2), m.group(1) + " in the README");
        }
        assertTrue(snippets >= 4, "the README shows the coordinates of api, impl, mock and testkit");
        assertTrue(readme.contains("version `" + version + "`"), "the table names the version " + version);
    }

    @Test
    void thePackageVersionsOfTheTableAreTheExportedOnes() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String table = readme.substring(readme.indexOf("| artifact (group `smbdirect`"));
        table = table.substring(0, table.indexOf("\n\n"));
        Matcher row = Pattern.compile("^\\| `(smbdirect\\.[\\w.]+)` \\| (.*) \\|$", Pattern.MULTILINE).matcher(table);
        List<String> checked = new ArrayList<>();
        while (row.find()) {
            Matcher pkg = Pattern.compile("`(smbdirect(?:\\.\\w+)*)` (\\d+\\.\\d+\\.\\d+)").matcher(row.group(2));
            while (pkg.find()) {
                Path info = ROOT.resolve(row.group(1)).resolve(Path.of("src", "main", "java"))
                        .resolve(pkg.group(1).replace('.', '/')).resolve("package-info.java");
                Matcher exported = Pattern.compile("@org\\.osgi\\.annotation\\.versioning\\.Version\\(\"([^\"]+)\"\\)")
                        .matcher(Files.readString(info));
                assertTrue(exported.find(), info + " has a version");
                assertEquals(exported.group(1), pkg.group(2), pkg.group(1) + " in the README's table");
                checked.add(pkg.group(1));
            }
        }
        assertTrue(checked.containsAll(List.of("smbdirect.api", "smbdirect.api.dto", "smbdirect.api.rdma",
                "smbdirect.api.settings",
                "smbdirect.standalone", "smbdirect.rdma.mock", "smbdirect.testkit")), checked.toString());
    }
}
