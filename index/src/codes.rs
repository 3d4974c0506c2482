//! The integer codes of the `refs` columns `role`, `status` and `via` (see
//! [`crate::store`]): [`role_code`], [`status_code`], [`via_code`]; a code
//! is also the position of the value in [`ROLES`], [`STATUSES`] or
//! [`VIAS`]. Integers rather than the spellings keep a row
//! small and its insert cheap (three text copies fewer per reference, 2.66
//! million in the standard library); queries spell them back with
//! [`role_name`], [`status_name`] and [`via_name`]. SQL that compares them
//! writes the code with the value in a comment: `r.status = 0 /* resolved
//! */`; the test below pins each code those comments name.

use outline_core::xref::Role;
use xref::{Status, Via};

/// Every role, in code order.
pub(crate) const ROLES: [Role; 8] = [
    Role::Call,
    Role::Instantiate,
    Role::TypeUse,
    Role::Inherit,
    Role::Import,
    Role::Attribute,
    Role::Read,
    Role::Write,
];

/// Every status, in code order.
pub(crate) const STATUSES: [Status; 6] = [
    Status::Resolved,
    Status::Candidate,
    Status::External,
    Status::Module,
    Status::Local,
    Status::Dynamic,
];

/// Every rule, in code order.
pub(crate) const VIAS: [Via; 9] = [
    Via::Scope,
    Via::Import,
    Via::Module,
    Via::ProjectUnique,
    Via::Receiver,
    Via::NameOnly,
    Via::None,
    Via::NameImported,
    Via::Macro,
];

/// The value of code `code` in `all`, spelled; `?` for a code this build
/// does not know (never written by it).
fn name<T: Copy>(all: &[T], code: i64, spell: fn(T) -> &'static str) -> &'static str {
    usize::try_from(code)
        .ok()
        .and_then(|i| all.get(i))
        .map_or("?", |&v| spell(v))
}

/// The code of `role` (a new role needs its code here and its place in
/// [`ROLES`]).
pub(crate) fn role_code(role: Role) -> i64 {
    match role {
        Role::Call => 0,
        Role::Instantiate => 1,
        Role::TypeUse => 2,
        Role::Inherit => 3,
        Role::Import => 4,
        Role::Attribute => 5,
        Role::Read => 6,
        Role::Write => 7,
    }
}

/// The code of `status` (and its place in [`STATUSES`]).
pub(crate) fn status_code(status: Status) -> i64 {
    match status {
        Status::Resolved => 0,
        Status::Candidate => 1,
        Status::External => 2,
        Status::Module => 3,
        Status::Local => 4,
        Status::Dynamic => 5,
    }
}

/// The code of `via` (and its place in [`VIAS`]).
pub(crate) fn via_code(via: Via) -> i64 {
    match via {
        Via::Scope => 0,
        Via::Import => 1,
        Via::Module => 2,
        Via::ProjectUnique => 3,
        Via::Receiver => 4,
        Via::NameOnly => 5,
        Via::None => 6,
        Via::NameImported => 7,
        Via::Macro => 8,
    }
}

/// The spelling of role code `code` (`call`, …).
pub(crate) fn role_name(code: i64) -> &'static str {
    name(&ROLES, code, Role::as_str)
}

/// The spelling of status code `code` (`resolved`, …).
pub(crate) fn status_name(code: i64) -> &'static str {
    name(&STATUSES, code, Status::as_str)
}

/// The spelling of rule code `code` (`scope`, …).
pub(crate) fn via_name(code: i64) -> &'static str {
    name(&VIAS, code, Via::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes the SQL of this crate writes as literals.
    #[test]
    fn the_codes_in_sql_are_these() {
        assert_eq!(role_code(Role::Call), 0);
        assert_eq!(role_code(Role::Instantiate), 1);
        assert_eq!(role_code(Role::Inherit), 3);
        assert_eq!(status_code(Status::Resolved), 0);
        assert_eq!(status_code(Status::Candidate), 1);
        assert_eq!(status_code(Status::Module), 3);
        assert_eq!(status_code(Status::Dynamic), 5);
    }

    #[test]
    fn every_code_spells_its_value_back() {
        for role in ROLES {
            assert_eq!(role_name(role_code(role)), role.as_str());
        }
        for status in STATUSES {
            assert_eq!(status_name(status_code(status)), status.as_str());
        }
        for via in VIAS {
            assert_eq!(via_name(via_code(via)), via.as_str());
        }
        assert_eq!(role_name(8), "?");
        assert_eq!(status_name(-1), "?");
    }
}
