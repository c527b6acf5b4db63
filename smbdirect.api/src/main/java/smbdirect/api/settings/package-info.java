/**
 * A component's own checks of its configuration, beyond its metatype, as data: each bundle of the
 * runtime registers a {@link smbdirect.api.settings.ConfigurationCheck} for the configuration PID
 * (or factory PID) of its component, running the same conversion its component runs, and the
 * runtime's settings guard consults it before the component is handed a configuration. A refused
 * value is a {@link smbdirect.api.settings.SettingRefusedException} carrying the attribute, the
 * value and the reason; {@link smbdirect.api.settings.ComponentProperties} reads a configuration's
 * raw properties through a component property type the way Declarative Services would, refusing a
 * value that does not fit its type by name.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package smbdirect.api.settings;
