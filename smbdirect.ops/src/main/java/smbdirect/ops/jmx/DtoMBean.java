package smbdirect.ops.jmx;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.ReflectionException;

/**
 * A read-only MBean whose attributes are values of the newest runtime DTO (the monitor's snapshot,
 * at most a second old): the scalar fields of a DTO class under their DTO names, so that JMX, the
 * JSON endpoint and the DTOs agree, plus derived attributes. Attribute types are open types
 * ({@code long}, {@code int}, {@code double}, {@code boolean}, {@code String}): any JMX client
 * (jconsole, VisualVM, Karaf's JMX, a Prometheus JMX exporter) reads them without our classes.
 * Optionally one operation without parameters. Thread-safe (immutable; the value source is).
 */
final class DtoMBean implements DynamicMBean {

    /** One attribute: name, open type, description, and how to read it from the current value. */
    record Attr(String name, Class<?> type, String description, Function<Object, Object> read) {
    }

    /** An operation without parameters returning a text. */
    record Op(String name, String description, Supplier<String> action) {
    }

    private final Supplier<Object> current;
    private final Map<String, Attr> attributes = new LinkedHashMap<>();
    private final Op operation;
    private final MBeanInfo info;

    DtoMBean(String className, String description, Supplier<Object> current, List<Attr> attrs, Op operation) {
        this.current = current;
        this.operation = operation;
        List<MBeanAttributeInfo> infos = new ArrayList<>();
        for (Attr a : attrs) {
            attributes.put(a.name(), a);
            infos.add(new MBeanAttributeInfo(a.name(), a.type().getName(), a.description(), true, false, false));
        }
        MBeanOperationInfo[] ops = operation == null ? new MBeanOperationInfo[0]
                : new MBeanOperationInfo[] { new MBeanOperationInfo(operation.name(), operation.description(),
                        new MBeanParameterInfo[0], String.class.getName(), MBeanOperationInfo.ACTION) };
        info = new MBeanInfo(className, description, infos.toArray(MBeanAttributeInfo[]::new), null, ops, null);
    }

    /**
     * The scalar public fields of {@code dtoType} as attributes read from the value {@code get}
     * extracts from the current one.
     */
    static List<Attr> fieldsOf(Class<?> dtoType, String prefixDescription, Function<Object, Object> get) {
        List<Attr> list = new ArrayList<>();
        for (Field f : dtoType.getFields()) {
            Class<?> t = f.getType();
            if (Modifier.isStatic(f.getModifiers()) || !(t.isPrimitive() || t == String.class)) {
                continue;
            }
            String name = smbdirect.ops.DtoFieldNames.shown(f);
            list.add(new Attr(name, t, prefixDescription + f.getName(), value -> {
                Object dto = get.apply(value);
                try {
                    return dto == null ? null : f.get(dto);
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        return list;
    }

    @Override
    public Object getAttribute(String name) throws AttributeNotFoundException {
        Attr a = attributes.get(name);
        if (a == null) {
            throw new AttributeNotFoundException(name);
        }
        Object value = current.get();
        if (value == null) {
            throw new AttributeNotFoundException(name + ": no longer present");
        }
        return a.read().apply(value);
    }

    @Override
    public AttributeList getAttributes(String[] names) {
        AttributeList list = new AttributeList();
        Object value = current.get();
        if (value == null) {
            return list;
        }
        for (String n : names) {
            Attr a = attributes.get(n);
            if (a != null) {
                list.add(new Attribute(n, a.read().apply(value)));
            }
        }
        return list;
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) throws MBeanException,
            ReflectionException {
        if (operation == null || !operation.name().equals(actionName) || (params != null && params.length > 0)) {
            throw new ReflectionException(new NoSuchMethodException(actionName));
        }
        return operation.action().get();
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
