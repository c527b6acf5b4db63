package smbdirect.impl.osgi.console;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URL;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The {@link StatusPage} as a Jakarta Servlet Web Console plugin: what the Felix Web Console 5
 * runs (the appliance runtime's console). Registered by {@link StatusPlugins} where the Jakarta
 * Servlet API is there. The page serves its own resources ({@code res/NAME} requests reach it
 * undecorated, like its {@code .json}).
 *
 * <p>Thread-safe as the page is.
 */
public final class JakartaStatusPlugin extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient StatusPage page;

    JakartaStatusPlugin(StatusPage page) {
        this.page = page;
    }

    /** The page's static resources, found by the Web Console: {@code /smbdirect/res/NAME}. */
    public URL getResource(String path) {
        return page.getResource(path);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        page.get(new JakartaExchange(request, response));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        page.post(new JakartaExchange(request, response));
    }

    private record JakartaExchange(HttpServletRequest request, HttpServletResponse response) implements StatusPage.Exchange {
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
