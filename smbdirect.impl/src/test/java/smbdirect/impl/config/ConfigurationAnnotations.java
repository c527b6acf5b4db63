package smbdirect.impl.config;

import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;

/** Instances of the configuration annotations, as Declarative Services hands them to a component. */
public final class ConfigurationAnnotations {

    private ConfigurationAnnotations() {
    }

    /** A configuration annotation instance: every attribute its default unless overridden. */
    @SuppressWarnings("unchecked")
    public static <A extends Annotation> A config(Class<A> type, Map<String, Object> overrides) {
        return (A) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
            String key = method.getName().replace("__", "\u0000").replace('_', '.').replace('\u0000', '_');
            if (overrides.containsKey(key)) {
                return overrides.get(key);
            }
            Object d = method.getDefaultValue();
            if (d != null) {
                return d;
            }
            return switch (method.getName()) {
                case "annotationType" -> type;
                case "toString" -> type.getSimpleName() + overrides;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> throw new IllegalStateException("no value for " + method);
            };
        });
    }

    /** A {@link TransportConfiguration} with the given attribute name and value pairs, the others their defaults. */
    public static TransportConfiguration transportConfig(Object... keyValues) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return config(TransportConfiguration.class, m);
    }
}
