package smbdirect.impl.control;

import java.util.List;

/**
 * What is wrong with the configurations now (a service of {@link SettingsGuard}), for the health
 * check, the status page and the shell; free of Config Admin types, so that they work without it.
 */
public interface SettingsFindings {

    /**
     * One line per refused value, unknown key or unknown configuration file: the file (or PID), the
     * key, the value, the reason and what the runtime did.
     */
    List<String> findings();
}
