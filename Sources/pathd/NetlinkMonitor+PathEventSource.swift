import Netlink
import PathDaemon

// The one place Netlink meets PathDaemon: the monitor already has the shape of an
// event source (start, cancel, callbacks on the state queue); only the executable
// joins the two modules, so neither has to import the other.
extension NetlinkMonitor: PathEventSource {}
