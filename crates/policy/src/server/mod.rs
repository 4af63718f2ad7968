//! Servers: the budget and deadline bookkeeping that server-based policies
//! share. RUN's servers and H-CBS's reservation servers both keep a budget
//! that runs down while the server is selected ([`Account`]: charged from
//! the instant it was selected, exactly, with the instant it runs out), in
//! exact integer-scaled form ([`Budget`]: `i128`, or big integers for RUN's
//! huge denominators); H-CBS adds the hard-CBS rules of deadlines, wake-up,
//! throttling and replenishment ([`cbs`]).

mod account;
pub(crate) mod cbs;
mod num;

pub(crate) use account::Account;
pub(crate) use num::Budget;
