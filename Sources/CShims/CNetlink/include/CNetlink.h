#ifndef SCANPICK_CNETLINK_H
#define SCANPICK_CNETLINK_H

/// Opens a NETLINK_ROUTE socket subscribed to link, address and route changes, or returns -1.
/// Every message on it means "the network changed": probe the server now.
int scanpick_netlink_open_route_monitor(void);

#endif
