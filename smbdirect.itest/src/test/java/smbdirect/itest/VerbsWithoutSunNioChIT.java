package smbdirect.itest;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The verbs provider in a framework that does not export {@code sun.nio.ch} (only DiSNI needs it):
 * the bundle resolves and starts all the same, its {@code sun.nio.ch} import stays unwired, and it
 * registers its status service naming each backend it tried and why it is not usable here.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class VerbsWithoutSunNioChIT extends FelixSupport {

    @Configuration
    public Option[] config() {
        return felixOptions(reactorBundle("smbdirect.rdma.verbs"));
    }

    @Test
    public void theVerbsBundleStartsWithoutSunNioChAndSaysWhatItTried() throws Exception {
        Bundle verbs = installedBundle("smbdirect.rdma.verbs");
        String imports = verbs.getHeaders().get("Import-Package");
        assertTrue(imports, imports.contains("sun.nio.ch;resolution:=optional"));
        BundleWiring wiring = verbs.adapt(BundleWiring.class);
        assertFalse("sun.nio.ch is not wired", wiring.getRequiredWires("osgi.wiring.package").stream()
                .anyMatch(w -> "sun.nio.ch".equals(w.getCapability().getAttributes().get("osgi.wiring.package"))));
        String text = verbsStatus();
        assertTrue(text, text.startsWith("unavailable: ") || text.equals("available"));
        assertTrue(text, text.equals("available") || text.contains("rdma-core: "));
    }
}
