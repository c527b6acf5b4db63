/**
 * What an operator configures, and how a configured value becomes a setting of the engine. No OSGi
 * at run time: the OSGi components and the plain-Java entry point read the same definitions.
 *
 * <ul>
 * <li>{@link smbdirect.impl.config.TransportConfiguration}: PID {@code smbdirect.transport}, the credits,
 * sizes, timers and provider filter of the transport: attribute names, defaults, ranges and the
 * descriptions the Web Console shows (the metatype is generated from it).</li>
 * <li>{@link smbdirect.impl.config.ListenerConfiguration}: factory PID {@code smbdirect.listener}, one
 * configured listening endpoint.</li>
 * <li>{@link smbdirect.impl.config.TransportConfigurations}: the one place a transport configuration is
 * validated and turned into {@link smbdirect.impl.engine.TransportSettings} (whose {@code toDTO}
 * shows them back under the same names); {@code fromProperties} reads plain properties through the same type, for
 * {@link smbdirect.standalone.StandaloneTransport}.</li>
 * <li>{@link smbdirect.impl.config.ConfigurationValues}: checks raw values against an attribute's type
 * before they are converted (a typo in a {@code .cfg} file is named with its attribute), maps
 * method names to property names as Declarative Services does, and names the file a configuration
 * came from.</li>
 * </ul>
 *
 * <p>Names: a type Configuration Admin fills is an {@code XxxConfiguration}, the checked values the
 * code uses are {@code XxxSettings} (the README's code map).
 *
 * <p>A refused value always names the configuration attribute and the value
 * ({@link smbdirect.impl.engine.SettingsException}); the attribute, the value and the reason are
 * its data ({@code attribute()}, {@code value()}, {@code reason()}), so a refusal of the engine's
 * builder is said again under the configuration's name without reading its message.
 */
package smbdirect.impl.config;
