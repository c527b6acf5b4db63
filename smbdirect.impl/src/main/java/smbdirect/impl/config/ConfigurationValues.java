package smbdirect.impl.config;

import java.lang.reflect.Method;
import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

import smbdirect.api.settings.ComponentProperties;
import smbdirect.impl.engine.SettingsException;

/**
 * Checks the raw values of a configuration against the types of its component property type
 * before Declarative Services converts them, so that a value that is no number (a typo in
 * {@code etc/smbdirect.transport.cfg}, {@code port = 44x5}) is refused with the attribute and the
 * value named, instead of a conversion exception without either. Also names where a configuration
 * came from (FileInstall's {@code felix.fileinstall.filename}) for log lines. Stateless.
 */
public final class ConfigurationValues {

    /** FileInstall's property naming the file a configuration was read from. */
    public static final String FILENAME = "felix.fileinstall.filename";

    private ConfigurationValues() {
    }

    /**
     * Checks every attribute of {@code type} present in {@code properties}: numbers and booleans must
     * be of (or parse as) the attribute's type.
     *
     * @throws SettingsException naming the first attribute whose value does not fit, and the value
     */
    public static void check(Class<?> type, Map<String, ?> properties) {
        if (properties == null) {
            return;
        }
        for (Method m : type.getDeclaredMethods()) {
            String key = propertyName(m.getName());
            Object raw = properties.get(key);
            if (raw == null) {
                continue;
            }
            if (raw.getClass().isArray()) {
                raw = java.lang.reflect.Array.getLength(raw) == 0 ? null : java.lang.reflect.Array.get(raw, 0);
                if (raw == null) {
                    continue;
                }
            }
            checkValue(key, m.getReturnType(), raw);
        }
    }

    private static void checkValue(String key, Class<?> t, Object raw) {
        if (t == int.class || t == long.class) {
            long min = t == int.class ? Integer.MIN_VALUE : Long.MIN_VALUE;
            long max = t == int.class ? Integer.MAX_VALUE : Long.MAX_VALUE;
            String what = t == int.class ? "not a whole number (32-bit)" : "not a whole number";
            if (raw instanceof Integer || raw instanceof Long || raw instanceof Short || raw instanceof Byte) {
                long v = ((Number) raw).longValue();
                if (v < min || v > max) {
                    throw new SettingsException(key, raw, what);
                }
                return;
            }
            if (raw instanceof Number) {
                throw new SettingsException(key, raw, what);
            }
            try {
                long v = Long.parseLong(raw.toString().strip());
                if (v < min || v > max) {
                    throw new SettingsException(key, raw, what);
                }
            } catch (NumberFormatException e) {
                throw new SettingsException(key, raw, what);
            }
        } else if (t == double.class || t == float.class) {
            if (raw instanceof Number) {
                return;
            }
            try {
                double v = Double.parseDouble(raw.toString().strip());
                if (Double.isNaN(v)) {
                    throw new SettingsException(key, raw, "not a number");
                }
            } catch (NumberFormatException e) {
                throw new SettingsException(key, raw, "not a number");
            }
        } else if (t == boolean.class) {
            String s = raw.toString().strip();
            if (!(raw instanceof Boolean) && !s.equalsIgnoreCase("true") && !s.equalsIgnoreCase("false")) {
                throw new SettingsException(key, raw, "not true or false");
            }
        }
    }

    /**
     * {@code raw} (already {@linkplain #check checked}) as a value of type {@code t}: a number, or
     * text parsed as one; the first element of an array.
     */
    public static Object convert(Class<?> t, Object raw) {
        Object v = raw;
        if (v.getClass().isArray()) {
            v = java.lang.reflect.Array.get(v, 0);
        }
        if (t == int.class) {
            return v instanceof Number n ? n.intValue() : Integer.parseInt(v.toString().strip());
        } else if (t == long.class) {
            return v instanceof Number n ? n.longValue() : Long.parseLong(v.toString().strip());
        } else if (t == double.class) {
            return v instanceof Number n ? n.doubleValue() : Double.parseDouble(v.toString().strip());
        } else if (t == boolean.class) {
            return v instanceof Boolean b ? b : Boolean.parseBoolean(v.toString().strip());
        }
        return v.toString();
    }

    /**
     * {@code properties} read through the component property type {@code type}, as Declarative
     * Services would (an absent attribute: the type's default); values must be {@linkplain #check
     * checked} first.
     */
    public static <T> T proxy(Class<T> type, Map<String, ?> properties) {
        Map<String, Method> attributes = new java.util.HashMap<>();
        for (Method m : type.getDeclaredMethods()) {
            attributes.put(propertyName(m.getName()), m);
        }
        return type.cast(java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> {
                    String key = propertyName(method.getName());
                    if (!method.equals(attributes.get(key))) {
                        return switch (method.getName()) {
                            case "annotationType" -> type;
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> type.getSimpleName() + properties;
                        };
                    }
                    Object raw = properties.get(key);
                    return raw == null ? method.getDefaultValue() : convert(method.getReturnType(), raw);
                }));
    }

    /** The component property name of a component property type method (DS 1.4, 112.8.2.1). */
    public static String propertyName(String method) {
        return ComponentProperties.propertyName(method);
    }

    /**
     * " from FILE" when the configuration was read from a file by FileInstall (the path of the
     * file), else "".
     */
    public static String source(Map<String, ?> properties) {
        Object uri = properties == null ? null : properties.get(FILENAME);
        if (!(uri instanceof String s)) {
            return "";
        }
        try {
            return " from " + Path.of(URI.create(s));
        } catch (IllegalArgumentException e) {
            return " from " + s;
        }
    }

    /** The configuration's PID as its properties name it, else {@code fallback}. */
    public static String pid(Map<String, ?> properties, String fallback) {
        Object pid = properties == null ? null : properties.get("service.pid");
        return pid instanceof String s ? s : fallback;
    }
}
