/*
 * The router, reached only through the kit: the kit is a shared singleton, so the shell and the
 * remotes use one react-router (one history, one context), and only the parts used here are
 * bundled (a shared package is bundled whole).
 */
export {
  BrowserRouter,
  Link,
  matchPath,
  Navigate,
  NavLink as RouterNavLink,
  Outlet,
  Route,
  Routes,
  useLocation,
  useMatch,
  useNavigate,
  useParams,
  useSearchParams,
} from 'react-router';
