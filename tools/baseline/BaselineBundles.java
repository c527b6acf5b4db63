import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

import aQute.bnd.differ.Baseline;
import aQute.bnd.differ.DiffPluginImpl;
import aQute.bnd.osgi.Jar;
import aQute.bnd.osgi.Processor;
import aQute.bnd.service.diff.Delta;

/**
 * bnd's baselining of bundles against the same bundles of an earlier tree, as the build's
 * bnd-baseline-maven-plugin does against a release: for each argument NEW=OLD, every package
 * either exports, its change (bnd's delta) and whether its new version is what the change asks
 * for. NEW=OLD1,OLD2 (a bundle split out of others since): the packages NEW exports that each OLD
 * exported, against it. Prints one line per package; exits 1 when a version is lower than the
 * change asks for (bnd's mismatch), 0 otherwise.
 */
public final class BaselineBundles {

    public static void main(String[] args) throws Exception {
        boolean mismatch = false;
        List<String> lines = new ArrayList<>();
        for (String pair : args) {
            String[] p = pair.split("=", 2);
            String[] olds = p[1].split(",");
            if (olds.length > 1) {
                // a bundle split out since: its packages none of the old bundles exported are new
                try (Jar newer = new Jar(new File(p[0]))) {
                    for (String pkg : exported(newer)) {
                        boolean before = false;
                        for (String old : olds) {
                            try (Jar older = new Jar(new File(old))) {
                                before |= exports(older, pkg);
                            }
                        }
                        if (!before) {
                            lines.add(String.format("%-32s %-36s %-9s %s", newer.getBsn(), pkg, "ADDED", "(in no bundle before)"));
                        }
                    }
                }
            }
            for (String old : olds) {
            try (Processor reporter = new Processor(); Jar newer = new Jar(new File(p[0]));
                    Jar older = new Jar(new File(old))) {
                Set<Baseline.Info> infos = new Baseline(reporter, new DiffPluginImpl()).baseline(newer, older, null);
                TreeMap<String, Baseline.Info> sorted = new TreeMap<>();
                infos.stream().filter(i -> olds.length == 1 || (exports(newer, i.packageName) && exports(older, i.packageName)))
                        .forEach(i -> sorted.put(i.packageName, i));
                for (Baseline.Info i : sorted.values()) {
                    Delta d = i.packageDiff.getDelta();
                    if (d == Delta.UNCHANGED && i.olderVersion != null && i.newerVersion != null
                            && i.olderVersion.equals(i.newerVersion) && !i.mismatch) {
                        lines.add(String.format("%-32s %-36s %-9s %s", newer.getBsn(), i.packageName, d, i.newerVersion));
                        continue;
                    }
                    lines.add(String.format("%-32s %-36s %-9s %s -> %s (bnd suggests %s)%s%s", newer.getBsn(),
                            i.packageName, d, i.olderVersion, i.newerVersion, i.suggestedVersion,
                            i.mismatch ? "  MISMATCH" : "", i.reason == null || i.reason.isEmpty() ? "" : ": " + i.reason));
                    mismatch |= i.mismatch;
                }
                for (String e : reporter.getErrors()) {
                    lines.add(newer.getBsn() + ": error: " + e);
                    mismatch = true;
                }
            }
            }
        }
        System.out.printf("%-32s %-36s %-9s %s%n", "bundle", "package", "change", "version (old -> new)");
        lines.forEach(System.out::println);
        System.exit(mismatch ? 1 : 0);
    }

    private static java.util.Set<String> exported(Jar jar) throws Exception {
        String header = jar.getManifest() == null ? null : jar.getManifest().getMainAttributes().getValue("Export-Package");
        return header == null ? java.util.Set.of() : new java.util.TreeSet<>(new aQute.bnd.header.Parameters(header).keySet());
    }

    private static boolean exports(Jar jar, String pkg) {
        try {
            String header = jar.getManifest() == null ? null : jar.getManifest().getMainAttributes().getValue("Export-Package");
            return header != null && new aQute.bnd.header.Parameters(header).containsKey(pkg);
        } catch (Exception e) {
            throw new IllegalStateException(jar.getName() + ": no manifest: " + e, e);
        }
    }
}
