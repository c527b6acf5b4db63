package smbdirect.ops.shell;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.Map;

import org.junit.jupiter.api.Test;

import smbdirect.api.SmbDirectTransport;
import smbdirect.api.dto.TransportDTO;
import smbdirect.impl.config.TransportConfigurations;

/** {@code smbd:settings} shows each setting in force under its configuration attribute's name and unit. */
class SmbdSettingsCommandTest {

    @Test
    void showsTheSettingsInForceByTheirConfigurationNames() {
        TransportDTO dto = new TransportDTO();
        dto.settings = TransportConfigurations.fromProperties(Map.of("keepaliveIntervalSeconds", "30")).toDTO();
        dto.settings.provider_target = "(smbdirect.provider=mock)";
        SmbDirectTransport transport = (SmbDirectTransport) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {SmbDirectTransport.class}, (p, m, a) -> {
                    if (m.getName().equals("getTransportDTO")) {
                        return dto;
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
        String out = new SmbdCommands(transport, null, null).settings();
        assertTrue(out.matches("(?s).*\\bkeepaliveIntervalSeconds +30\\n.*"), out);
        assertTrue(out.matches("(?s).*\\bprovider\\.target +\\(smbdirect\\.provider=mock\\)\\n.*"), out);
        assertTrue(out.matches("(?s).*\\breceiveBufferBudgetMB +4096\\n.*"), out);
        assertTrue(out.matches("(?s).*\\bdrainTimeoutSeconds +10\\n.*"), out);
        assertFalse(out.contains("Millis 120000"), out);
        assertTrue(out.contains("No setting refused"), out);
    }
}
