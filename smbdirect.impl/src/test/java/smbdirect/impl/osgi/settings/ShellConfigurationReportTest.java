package smbdirect.impl.osgi.settings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which of Karaf's config commands the shell report judges, and what it reads from them. */
class ShellConfigurationReportTest {

    @Test
    void propertySetWithAPidIsReadAsThePidTheKeyAndTheValue() {
        assertArrayEquals(new String[] {"smbdirect.transport", "receiveCreditMax", "0"},
                ShellConfigurationReport.propertySetWithPid("config:property-set -p smbdirect.transport receiveCreditMax 0"));
        assertArrayEquals(new String[] {"smbdirect.listener-default", "bindAddress", "10.0.0.1"},
                ShellConfigurationReport.propertySetWithPid(
                        "  config:property-set --pid 'smbdirect.listener-default' bindAddress \"10.0.0.1\" "));
        assertArrayEquals(new String[] {"smbdirect.transport", "receiveCreditMax", "0"},
                ShellConfigurationReport.propertySetWithPid("config:property-set receiveCreditMax 0 -p smbdirect.transport"));
        assertArrayEquals(new String[] {"smbdirect.transport", "k", "a b"},
                ShellConfigurationReport.propertySetWithPid("config:property-set --pid=smbdirect.transport k 'a b'"));
    }

    @Test
    void propertySetWithoutAPidOrWithAnUnknownOptionAndOtherCommandsAreNotJudgedHere() {
        // without -p the session's copy is edited: judged at config:update
        assertNull(ShellConfigurationReport.propertySetWithPid("config:property-set receiveCreditMax 0"));
        assertNull(ShellConfigurationReport.propertySetWithPid("config:property-set -x -p smbdirect.transport k 0"));
        assertNull(ShellConfigurationReport.propertySetWithPid("config:property-set -p smbdirect.transport k"));
        assertNull(ShellConfigurationReport.propertySetWithPid("config:property-delete -p smbdirect.transport k"));
        assertNull(ShellConfigurationReport.propertySetWithPid(""));
        assertTrue(ShellConfigurationReport.isConfigUpdate("config:update"));
        assertFalse(ShellConfigurationReport.isConfigUpdate("config:update-all"));
    }
}
