/**
 * Settings that stay good: {@link smbdirect.impl.osgi.settings.SettingsGuard} checks each SMB Direct (and Web Console)
 * configuration against its metatype ({@link smbdirect.impl.osgi.settings.SettingsCheck}) and its
 * component's own checks (the {@code smbdirect.api.settings.ConfigurationCheck} services the bundles
 * register; this bundle's by {@link smbdirect.impl.osgi.settings.ConfigurationChecks}), keeps the last good values of each in the
 * framework's data area, hands components and Config Admin those instead of a refused value, and
 * reports what it refused, unknown keys and unknown configuration files (with the nearest known
 * name) to the health check and the status page.
 */
package smbdirect.impl.osgi.settings;
