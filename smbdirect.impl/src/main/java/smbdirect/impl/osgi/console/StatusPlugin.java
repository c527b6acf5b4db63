package smbdirect.impl.osgi.console;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URL;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The {@link StatusPage} as a javax servlet Web Console plugin: what Karaf's Web Console (Felix
 * Web Console 4, javax) runs. Registered by {@link StatusPlugins} where no Jakarta Felix Web
 * Console is installed. The console finds the page's resources through {@link #getResource(String)}.
 *
 * <p>Thread-safe as the page is.
 */
public final class StatusPlugin extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient StatusPage page;

    StatusPlugin(StatusPage page) {
        this.page = page;
    }

    /** The page's static resources, found by the Web Console: {@code /smbdirect/res/NAME}. */
    public URL getResource(String path) {
        return page.getResource(path);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        page.get(new JavaxExchange(request, response));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        page.post(new JavaxExchange(request, response));
    }

    private record JavaxExchange(HttpServletRequest request, HttpServletResponse response) implements StatusPage.Exchange {
        @Override
        public String pathInfo() {
            return request.getPathInfo();
        }

        @Override
        public String parameter(String name) {
            return request.getParameter(name);
        }

        @Override
        public String[] parameters(String name) {
            return request.getParameterValues(name);
        }

        @Override
        public String header(String name) {
            return request.getHeader(name);
        }

        @Override
        public Object attribute(String name) {
            return request.getAttribute(name);
        }

        @Override
        public String servletRoot() {
            return request.getContextPath() + request.getServletPath();
        }

        @Override
        public String requestUri() {
            return request.getRequestURI();
        }

        @Override
        public void contentType(String type, String encoding) {
            response.setContentType(type);
            response.setCharacterEncoding(encoding);
        }

        @Override
        public void header(String name, String value) {
            response.setHeader(name, value);
        }

        @Override
        public PrintWriter writer() throws IOException {
            return response.getWriter();
        }

        @Override
        public OutputStream output() throws IOException {
            return response.getOutputStream();
        }

        @Override
        public void sendError(int status, String message) throws IOException {
            response.sendError(status, message);
        }

        @Override
        public void sendRedirect(String location) throws IOException {
            response.sendRedirect(location);
        }
    }
}
