//! The survey of a group on one position of the search: its eyes, its
//! room, its friends and its prey, and from them whether the position is
//! already settled.
//!
//! A **region** of the group is a connected set of points without a stone
//! of the group's colour, next to the group: empty points and opponent
//! stones. A region is **enclosed** when no other chain of the owner's
//! colour borders it, no opponent stone that cannot be captured stands in
//! it, and it is not a big part of the board: its opponent stones, if any,
//! are prisoners, and the region is eye space. What eye space is worth is
//! a pair: eyes when the attacker plays in it first, and when the owner
//! does ([`value`]). Other regions are the outside, where the group's room
//! is: its liberties there that no opponent stone touches, and the empty
//! points next to those that no opponent stone touches either.

use super::super::playout::{PlayoutBoard, BORDER};
use super::Standing;
use crate::board::chains::{neighbours as nbrs, CELLS, STRIDE};

/// Room (own liberties and the points beyond them) in which a group
/// might make one eye, and two.
const ROOM_ONE: usize = 3;
const ROOM_TWO: usize = 5;

/// The most points of a space holding opponent stones that is not taken
/// for two eyes as it stands.
const PRISON: usize = 7;

/// Passes of the domains' spreading: enough to cross a wide area.
const DOMAIN_PASSES: usize = 6;

/// Room counted at most: more is two eyes' worth anyway.
const ROOM_CAP: usize = 16;

/// Empty points of a space that make it wide: more than a group inside it
/// could own, were it alive.
const WIDE_SPACE: usize = 12;

/// The fewest liberties of a group judged unable to live without being
/// captured: one with fewer is read on to its capture (or to the seki
/// that stops it), which the search reaches within its budget.
const JUDGED_LIBERTIES: u32 = 3;

/// The most points of eye space whose shape is read: the nakade shapes
/// are at most six points; bigger spaces are two eyes.
const SHAPED: usize = 6;

/// What one survey found; the lists are the candidate moves it suggests.
#[derive(Debug, Default)]
pub(crate) struct Survey {
    goal_mark: Vec<u32>,
    region_mark: Vec<u32>,
    seen_mark: Vec<u32>,
    stamp: u32,
    /// The stamp of the group's stones in `goal_mark`.
    goal_stamp: u32,
    heads: Vec<u16>,
    queue: Vec<u16>,
    region: Vec<u16>,
    /// Per point, which colours control it ([`Survey::domains`]): bit 0
    /// Black, bit 1 White.
    dom: Vec<u8>,
    /// Per point, the colour bit of a stone not found dead on it, else 0.
    lively: Vec<u8>,
    /// Per point, the colours whose control may pass beside it: the
    /// colour of a stone not found dead on it, both (3) on any other.
    allow: Vec<u8>,
    /// Per region of this survey (by `region_mark - first_region`):
    /// whether it is the outside.
    outside: Vec<bool>,
    first_region: u32,
    /// Per enclosed region: its value (attacker first, owner first),
    /// whether it is a shape of three to six points, and whether the
    /// owner-first value is only a hope, and the region.
    values: Vec<(u8, u8, bool, bool, usize)>,
    /// Per region: the group's liberties in it.
    region_libs: Vec<u32>,
    /// Eyes counted from the enclosed regions: the sum of their values
    /// when the attacker plays first in each, and how many of them a move
    /// of the owner raises by one and by two.
    sure_eyes: u8,
    gains: [u8; 3],
    /// The same gains, counting the regions whose owner-first value is
    /// only a hope (prisoners inside, or a shape without a liberty
    /// outside it).
    hoped: [u8; 3],
    /// A chain of the group is in atari.
    pub(crate) in_atari: bool,
    /// A chain of the group contains a stone of a sure friend.
    pub(crate) joined: bool,
    /// A friend that is not dead is within three steps of the group.
    pub(crate) reaches_friend: bool,
    /// An opponent chain next to the group may be captured.
    pub(crate) prey: bool,
    /// The group's room outside its eye space.
    pub(crate) room: usize,
    /// Every liberty of the group is in its eye space: nothing outside.
    pub(crate) shut_in: bool,
    /// The group's liberties.
    pub(crate) liberties: u32,
    /// The group borders a wide space that only stones found alive
    /// without proof keep from being its own ([`WIDE_SPACE`]).
    wide: bool,
    /// Candidate moves, by kind.
    pub(crate) saves: Vec<u16>,
    pub(crate) takes: Vec<u16>,
    pub(crate) ataris: Vec<u16>,
    pub(crate) reinforce: Vec<u16>,
    pub(crate) vital: Vec<u16>,
    pub(crate) links: Vec<u16>,
    /// The liberties of the owner's chains outside the group, not found
    /// alive and short of liberties, beside a liberty of the group: the
    /// stones that keep the group's outside liberties its own (taken,
    /// they open them to the attacker).
    pub(crate) cuts: Vec<u16>,
    pub(crate) eye_points: Vec<u16>,
    pub(crate) true_eyes: Vec<u16>,
    pub(crate) own_libs: Vec<u16>,
    pub(crate) other_libs: Vec<u16>,
    /// The liberties of the opponent's chains the group races: the
    /// owner's moves of the race (filling them from outside).
    pub(crate) races: Vec<u16>,
    pub(crate) beyond: Vec<u16>,
}

impl Survey {
    fn next_stamp(&mut self) -> u32 {
        if self.goal_mark.len() < CELLS {
            self.goal_mark.resize(CELLS, 0);
            self.region_mark.resize(CELLS, 0);
            self.seen_mark.resize(CELLS, 0);
        }
        if self.stamp > u32::MAX - 4 * CELLS as u32 {
            self.goal_mark.fill(0);
            self.region_mark.fill(0);
            self.seen_mark.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
        self.stamp
    }

    /// Eyes the group has for certain when `attacker_first` says who
    /// moves next: the enclosed regions' values, the half eyes shared out
    /// in turn.
    pub(crate) fn eyes(&self, attacker_first: bool) -> u8 {
        self.count(attacker_first, &self.gains)
    }

    /// The most eyes the group may hope for, moving first.
    pub(crate) fn hoped_eyes(&self) -> u8 {
        self.count(false, &self.hoped)
    }

    fn count(&self, attacker_first: bool, gains: &[u8; 3]) -> u8 {
        // Each side in turn takes the region that gains most: the owner
        // gets the first, third... when it moves first, the second,
        // fourth... otherwise.
        let mut extra = 0u8;
        let mut turn = usize::from(attacker_first);
        for gain in [2u8, 1] {
            for _ in 0..gains[usize::from(gain)] {
                if turn % 2 == 0 {
                    extra = extra.saturating_add(gain);
                }
                turn += 1;
            }
        }
        self.sure_eyes.saturating_add(extra)
    }

    /// Whether the group lives as it stands, `attacker_first` to move: it
    /// has joined a sure friend, or it has two eyes and no chain in atari.
    /// A chain in atari with the attacker to move is taken first, however
    /// the group's other stones link up: a stone played to fill the
    /// opponent's liberties from outside joins the owner's wall there,
    /// not the chain in the race.
    pub(crate) fn alive(&self, attacker_first: bool) -> bool {
        if self.in_atari && attacker_first {
            return false;
        }
        self.joined || (!self.in_atari && self.eyes(attacker_first) >= 2)
    }

    /// Whether the group cannot live even with the next move: not two eyes
    /// however its eye space and room are used, no friend in reach, and
    /// nothing around it to capture. `trust_walls`: the opponent's stones
    /// found alive without proof are taken as alive, so a wide area they
    /// wall off is theirs (the captor reader's question, asked only when
    /// they are), not possibly the group's.
    pub(crate) fn hopeless(&self, trust_walls: bool) -> bool {
        let room = if self.room >= ROOM_TWO {
            2
        } else if self.room >= ROOM_ONE {
            1
        } else {
            0
        };
        !self.joined
            && !self.reaches_friend
            && !self.prey
            && self.liberties >= JUDGED_LIBERTIES
            && (trust_walls || !self.wide)
            && self.hoped_eyes().saturating_add(room) < 2
    }

    /// Surveys the group of colour `me` made of the chains holding a stone
    /// of `goal` or of `played`, on `board`; `standing` is per cell.
    pub(crate) fn run(
        &mut self,
        board: &PlayoutBoard,
        me: u8,
        goal: &[u16],
        played: &[u16],
        standing: &[Standing],
        rooted: &[bool],
    ) {
        let opp = 3 - me;
        let g = self.next_stamp();
        self.goal_stamp = g;
        self.heads.clear();
        for &c in goal.iter().chain(played) {
            let c = usize::from(c);
            if board.stone(c) != me {
                continue;
            }
            let h = board.head_of(c);
            if self.goal_mark[h] == g {
                continue;
            }
            for s in board.stones(h) {
                self.goal_mark[s] = g;
            }
            self.heads.push(h as u16);
        }
        self.sure_eyes = 0;
        self.gains = [0; 3];
        self.hoped = [0; 3];
        self.in_atari = false;
        self.joined = false;
        self.reaches_friend = false;
        self.prey = false;
        self.room = 0;
        self.shut_in = false;
        self.wide = false;
        for list in [
            &mut self.saves,
            &mut self.takes,
            &mut self.ataris,
            &mut self.reinforce,
            &mut self.vital,
            &mut self.links,
            &mut self.cuts,
            &mut self.eye_points,
            &mut self.true_eyes,
            &mut self.own_libs,
            &mut self.other_libs,
            &mut self.races,
            &mut self.beyond,
        ] {
            list.clear();
        }
        // The group's chains: atari, joined friends, the key liberties.
        let mut key_libs = 0;
        let mut libs = [0usize; 8];
        for k in 0..self.heads.len() {
            let h = usize::from(self.heads[k]);
            if let Some(l) = board.atari_point(h) {
                self.in_atari = true;
                self.saves.push(l as u16);
            }
            key_libs = key_libs.max(board.liberties(h, &mut libs));
            if board.stones(h).any(|s| strong(standing[s])) {
                self.joined = true;
            }
        }
        // Regions.
        let points = board_points(board);
        let big = points / 3;
        self.outside.clear();
        self.values.clear();
        self.first_region = self.next_stamp();
        self.stamp += points as u32 + 1;
        let mut next_region = self.first_region;
        for k in 0..self.heads.len() {
            let h = usize::from(self.heads[k]);
            for s in board.stones(h) {
                for q in nbrs(s) {
                    let t = board.stone(q);
                    if t == me || t == BORDER || self.region_mark[q] > self.first_region {
                        continue;
                    }
                    next_region += 1;
                    self.region(board, q, me, g, next_region, big, standing);
                }
            }
        }
        // A shape of three to six points is one eye or two only while the
        // group has a liberty outside it: without one, every placement
        // inside is atari on the group (the rectangular six and the bent
        // four in the corner die so), and only the reading knows.
        let libs_at = self.next_stamp();
        self.region_libs.clear();
        self.region_libs.resize(self.outside.len(), 0);
        let mut total_libs = 0u32;
        for k in 0..self.heads.len() {
            for s in board.stones(usize::from(self.heads[k])) {
                for l in nbrs(s) {
                    if board.stone(l) == 0 && self.seen_mark[l] != libs_at {
                        self.seen_mark[l] = libs_at;
                        total_libs += 1;
                        let r = self.region_mark[l];
                        if r > self.first_region {
                            self.region_libs[(r - self.first_region - 1) as usize] += 1;
                        }
                    }
                }
            }
        }
        self.liberties = total_libs;
        self.shut_in = total_libs > 0
            && (0..self.outside.len())
                .filter(|&r| !self.outside[r])
                .map(|r| self.region_libs[r])
                .sum::<u32>()
                == total_libs;
        for k in 0..self.values.len() {
            let (mut min, max, shaped, mut hope, r) = self.values[k];
            if shaped && self.region_libs[r] == total_libs {
                min = 0;
                hope = true;
            }
            self.sure_eyes = self.sure_eyes.saturating_add(min);
            if max > min {
                let gain = usize::from((max - min).min(2));
                self.hoped[gain] = self.hoped[gain].saturating_add(1);
                if !hope {
                    self.gains[gain] = self.gains[gain].saturating_add(1);
                }
            }
        }
        // The opponent chains around it: prey when short of liberties.
        let seen = self.next_stamp();
        for k in 0..self.heads.len() {
            let h = usize::from(self.heads[k]);
            for s in board.stones(h) {
                for q in nbrs(s) {
                    if board.stone(q) != opp {
                        continue;
                    }
                    let oh = board.head_of(q);
                    if self.seen_mark[oh] == seen {
                        continue;
                    }
                    self.seen_mark[oh] = seen;
                    let n = board.liberties(oh, &mut libs);
                    if n == 1 {
                        self.takes.push(libs[0] as u16);
                    } else if n == 2 {
                        self.ataris.extend([libs[0] as u16, libs[1] as u16]);
                    }
                    // A chain of the attacker's short of liberties next to
                    // the group: in a race the attacker gains liberties by
                    // extending, or by taking an owner's chain in atari
                    // that is not the group's (a dead stone beside it).
                    if n <= 3 && self.is_outside(q) {
                        self.reinforce.extend(libs[..n].iter().map(|&l| l as u16));
                        for t in board.stones(oh) {
                            for r in nbrs(t) {
                                if board.stone(r) == me && self.goal_mark[r] != g {
                                    if let Some(l) = board.atari_point(board.head_of(r)) {
                                        self.reinforce.push(l as u16);
                                    }
                                }
                            }
                        }
                    }
                    // A stone the attacker played in the reading, short of
                    // liberties as such stones are, is prey only in atari;
                    // a chain of the position is prey in a race too. The
                    // prisoners in the group's eye space are not: what
                    // taking them is worth is the eye space's value.
                    // Its liberties next to the group are shared: the
                    // attacker can fill them only as it fills its own.
                    let shared = libs[..n]
                        .iter()
                        .filter(|&&l| nbrs(l).into_iter().any(|x| self.goal_mark[x] == g))
                        .count();
                    let shares = shared > 0;
                    // Counted to the end (not a lower bound), the outside
                    // liberties are the moves the owner needs to win the
                    // race or make it a seki; with no more of them than
                    // the group has liberties, the race is not lost yet.
                    let outside = n - shared;
                    let counted = n < libs.len();
                    // What the layers found of the chain, from any of its
                    // stones: the attacker may have joined a stone of the
                    // reading to one found alive or dead, and the chain
                    // is that stone's whichever the survey met first.
                    let (mut proven, mut dead) = (false, false);
                    for t in board.stones(oh) {
                        proven |= standing[t] == Standing::Sure;
                        dead |= standing[t] == Standing::Dead;
                    }
                    let race = self.is_outside(q)
                        && rooted[q]
                        && !proven
                        && shares
                        && (n <= 3
                            || (n <= 5 && n <= key_libs + 1)
                            || (counted && outside <= key_libs));
                    if race {
                        self.races.extend(libs[..n].iter().map(|&l| l as u16));
                    }
                    // A prisoner in atari next to a group in atari is prey
                    // too: taking it is the group's answer to the atari.
                    // So is a chain found dead: the group gets its points
                    // in the end.
                    if (n == 1 && (self.is_outside(q) || self.in_atari)) || race || dead {
                        self.prey = true;
                    }
                }
            }
        }
        // The room outside, and friends within reach.
        let g2 = self.next_stamp();
        for k in 0..self.heads.len() {
            let h = usize::from(self.heads[k]);
            for s in board.stones(h) {
                for l in nbrs(s) {
                    if board.stone(l) != 0 || self.seen_mark[l] == g2 {
                        continue;
                    }
                    self.seen_mark[l] = g2;
                    if self.is_outside(l) {
                        self.own_libs.push(l as u16);
                    }
                    // Friends two or three steps away.
                    for m in nbrs(l) {
                        let t = board.stone(m);
                        if t == me && self.goal_mark[m] != g {
                            if strong(standing[m]) {
                                self.reaches_friend = true;
                                self.links.push(l as u16);
                            } else {
                                // Each such chain once (its head marked
                                // as the liberties are).
                                let h = board.head_of(m);
                                if self.seen_mark[h] != g2 {
                                    self.seen_mark[h] = g2;
                                    let n = board.liberties(h, &mut libs);
                                    if n <= 2 {
                                        self.cuts.extend(libs[..n].iter().map(|&x| x as u16));
                                    }
                                }
                            }
                        } else if t == 0 {
                            let far = nbrs(m).into_iter().any(|r| {
                                board.stone(r) == me
                                    && self.goal_mark[r] != g
                                    && strong(standing[r])
                            });
                            if far {
                                self.reaches_friend = true;
                                self.links.extend([l as u16, m as u16]);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The room beyond, for the group of colour `me` surveyed last (by
    /// [`Survey::run`] on the same board): the points the group's colour
    /// controls alone ([`Survey::domains`]), connected to its liberties
    /// outside its eye space. `other_libs` are liberties the opponent
    /// controls too; `own_libs` and `beyond` are the room. Apart from
    /// [`Survey::run`] because it costs most of a survey and a position
    /// found alive or shut in needs none of it.
    pub(crate) fn room(&mut self, board: &PlayoutBoard, me: u8, standing: &[Standing]) {
        self.domains(board, standing);
        let mine = 1u8 << (me - 1);
        let near = self.next_stamp();
        for &l in self.own_libs.iter() {
            self.seen_mark[usize::from(l)] = near;
        }
        for k in 0..self.own_libs.len() {
            let l = self.own_libs[k];
            if self.dom[usize::from(l)] != mine {
                self.other_libs.push(l);
            }
        }
        let dom = &self.dom;
        self.own_libs.retain(|&l| dom[usize::from(l)] == mine);
        self.queue.clear();
        self.queue.extend_from_slice(&self.own_libs);
        let mut k = 0;
        while k < self.queue.len() && self.beyond.len() < ROOM_CAP {
            let l = usize::from(self.queue[k]);
            k += 1;
            for m in nbrs(l) {
                if board.stone(m) != 0
                    || self.seen_mark[m] == near
                    || self.dom[m] != mine
                    || !self.is_outside(m)
                {
                    continue;
                }
                self.seen_mark[m] = near;
                self.beyond.push(m as u16);
                self.queue.push(m as u16);
            }
        }
        // A point on the edge is worth two: the edge is a wall of its own,
        // and a group makes eyes there with fewer stones.
        let on_edge = |c: &u16| {
            nbrs(usize::from(*c))
                .into_iter()
                .any(|q| board.stone(q) == BORDER)
        };
        self.room = self.own_libs.len()
            + self.beyond.len()
            + self.own_libs.iter().filter(|c| on_edge(c)).count()
            + self.beyond.iter().filter(|c| on_edge(c)).count();
    }

    /// Which colour controls each point, after GNU Go's eye-space
    /// domains (our own code): a living stone controls its point and the
    /// empty points beside it; an empty point is controlled too when a
    /// neighbour and the diagonal point next to that neighbour are, unless
    /// an opponent stone stands on the other point between them (so that
    /// control does not leak through a knight's move). A point controlled
    /// by both colours is contested: no room for either. Dead stones
    /// count as empty points.
    fn domains(&mut self, board: &PlayoutBoard, standing: &[Standing]) {
        // Every cell outside the board (and the padding) controls nothing,
        // so the spreading below needs no test for the edge.
        self.dom.clear();
        self.dom.resize(CELLS, 0);
        self.lively.clear();
        self.lively.resize(CELLS, 0);
        self.allow.clear();
        self.allow.resize(CELLS, 3);
        let (w, h) = board.size();
        for y in 0..h {
            for x in 0..w {
                let c = PlayoutBoard::cell(x, y);
                let s = board.stone(c);
                if (s == 1 || s == 2) && standing[c] != Standing::Dead {
                    self.lively[c] = 1 << (s - 1);
                    self.allow[c] = 1 << (s - 1);
                }
            }
        }
        self.queue.clear();
        for y in 0..h {
            for x in 0..w {
                let c = PlayoutBoard::cell(x, y);
                let mut d = self.lively[c];
                if d == 0 {
                    for q in nbrs(c) {
                        d |= self.lively[q];
                    }
                    if d != 3 {
                        self.queue.push(c as u16);
                    }
                }
                self.dom[c] = d;
            }
        }
        // Spread over the points not yet controlled by both, a few passes
        // ([`reach`]), each point taking what its neighbours hold so far.
        for _pass in 0..DOMAIN_PASSES {
            let mut changed = false;
            for k in 0..self.queue.len() {
                let p = usize::from(self.queue[k]);
                let before = self.dom[p];
                if before == 3 {
                    continue;
                }
                let d = before | reach(&self.dom, &self.allow, p);
                if d != before {
                    self.dom[p] = d;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Whether the stone on `c` belongs to the group surveyed last.
    pub(crate) fn in_goal(&self, board: &PlayoutBoard, c: usize) -> bool {
        let _ = board;
        self.goal_mark.get(c) == Some(&self.goal_stamp)
    }

    fn is_outside(&self, c: usize) -> bool {
        let r = self.region_mark[c];
        r > self.first_region && self.outside[(r - self.first_region - 1) as usize]
    }

    /// Floods the region holding `from` (stamp `id`) and values it.
    #[allow(clippy::too_many_arguments)]
    fn region(
        &mut self,
        board: &PlayoutBoard,
        from: usize,
        me: u8,
        goal: u32,
        id: u32,
        big: usize,
        standing: &[Standing],
    ) {
        let opp = 3 - me;
        self.region.clear();
        self.queue.clear();
        self.queue.push(from as u16);
        self.region_mark[from] = id;
        let (mut shared, mut walled, mut prisoners) = (false, false, false);
        let (mut proven, mut empties) = (false, 0usize);
        while let Some(c) = self.queue.pop() {
            let c = usize::from(c);
            self.region.push(c as u16);
            if board.stone(c) == opp {
                prisoners = true;
                walled |= strong(standing[c]);
                proven |= standing[c] == Standing::Sure;
            } else {
                empties += 1;
            }
            for q in nbrs(c) {
                match board.stone(q) {
                    BORDER => {}
                    t if t == me => {
                        if self.goal_mark[q] != goal && standing[q] != Standing::Dead {
                            shared = true;
                        }
                    }
                    _ => {
                        if self.region_mark[q] != id {
                            self.region_mark[q] = id;
                            self.queue.push(q as u16);
                        }
                    }
                }
            }
        }
        let outside = shared || walled || self.region.len() > big;
        self.outside.push(outside);
        // A wide space of the group's own, walled off only by opponent
        // stones found alive without proof: the group may be what owns it
        // (an invader inside it is the dead one), so no judgement.
        if !shared && !proven && empties >= WIDE_SPACE {
            self.wide = true;
        }
        if outside {
            return;
        }
        let (mut min, max, vital) = value(board, &self.region, me);
        // The opponent's stones in a small space are not prisoners yet:
        // taking them costs the owner moves and liberties, and the space
        // they leave may be one eye or none (a seki with stones inside,
        // a bent four that becomes a ko). Only the reading knows.
        let hope = prisoners && self.region.len() <= PRISON;
        if hope {
            // What the owner may hope for there: the value its shape
            // gives, the vital point taken or not (a nakade shape with
            // the attacker's stone on its vital point is one eye however
            // the owner takes the stones: the space left is the vital
            // point's), and a bigger space may still be two eyes.
            min = 0;
        }
        let shaped = (3..=SHAPED).contains(&self.region.len());
        let index = (id - self.first_region - 1) as usize;
        self.values.push((min, max, shaped, hope, index));
        if let Some(v) = vital {
            self.vital.push(v);
        }
        if self.region.len() == 1 && min == 1 {
            self.true_eyes.push(self.region[0]);
        } else if self.region.len() <= SHAPED {
            for &c in &self.region {
                if board.stone(usize::from(c)) == 0 {
                    self.eye_points.push(c);
                }
            }
        }
    }
}

/// The colours that reach `p` (a point on the board) in one step of the
/// domains' spreading ([`Survey::domains`]): a colour reaches it from a
/// neighbour and the diagonal beside that neighbour that both hold it,
/// unless a living stone of the other colour stands on the point between
/// the diagonal and `p`. The 3x3 block around `p` is read as one array,
/// so that the hot loop of the survey checks bounds once per point.
#[inline]
fn reach(dom: &[u8], allow: &[u8], p: usize) -> u8 {
    const S: usize = STRIDE;
    const UL: usize = 0;
    const U: usize = 1;
    const UR: usize = 2;
    const L: usize = S;
    const R: usize = S + 2;
    const DL: usize = 2 * S;
    const D: usize = 2 * S + 1;
    const DR: usize = 2 * S + 2;
    let (Ok(dom), Ok(allow)) = (
        <&[u8; 2 * S + 3]>::try_from(&dom[p - S - 1..=p + S + 1]),
        <&[u8; 2 * S + 3]>::try_from(&allow[p - S - 1..=p + S + 1]),
    ) else {
        // Never: both slices are 2S+3 long.
        return 0;
    };
    let (up, left, right, down) = (allow[U], allow[L], allow[R], allow[D]);
    dom[U] & (dom[UL] & left | dom[UR] & right)
        | dom[L] & (dom[UL] & up | dom[DL] & down)
        | dom[R] & (dom[UR] & up | dom[DR] & down)
        | dom[D] & (dom[DL] & left | dom[DR] & right)
}

/// A chain found alive, with proof or without.
fn strong(standing: Standing) -> bool {
    matches!(standing, Standing::Sure | Standing::Alive)
}

fn board_points(board: &PlayoutBoard) -> usize {
    let (w, h) = board.size();
    w * h
}

/// What an enclosed region (`cells`: empty points and the attacker's
/// prisoners) is worth to its owner `me`: eyes when the attacker plays
/// first, eyes when the owner does, and the point that decides between
/// them.
pub(crate) fn value(board: &PlayoutBoard, cells: &[u16], me: u8) -> (u8, u8, Option<u16>) {
    match cells.len() {
        0 => (0, 0, None),
        1 => {
            let c = usize::from(cells[0]);
            eye_point(board, c, me)
        }
        2 => (1, 1, None),
        n if n <= SHAPED => {
            let (degree, best, square) = shape(cells);
            let nakade = match n {
                3 => true,
                4 => square || degree == 3,
                5 => square || degree == 4,
                _ => square && degree == 4,
            };
            if !nakade {
                (2, 2, None)
            } else if n == 4 && square {
                // The square four has no point that makes two eyes.
                (1, 1, None)
            } else if board.stone(usize::from(best)) == 0 {
                (1, 2, Some(best))
            } else {
                (1, 1, None)
            }
        }
        _ => (2, 2, None),
    }
}

/// A one-point region: a true eye (1, 1), a half eye the attacker can
/// make false by taking the diagonal returned (0, 1), or a false eye
/// (0, 0). The points around it are the owner's; the eye is false when
/// the attacker holds enough diagonals (one on the edge, two in the
/// middle) and the owner's chains around it are not already one chain.
fn eye_point(board: &PlayoutBoard, c: usize, me: u8) -> (u8, u8, Option<u16>) {
    let opp = 3 - me;
    let mut first = usize::MAX;
    let mut one_chain = true;
    for q in nbrs(c) {
        if board.stone(q) == me {
            let h = board.head_of(q);
            if first == usize::MAX {
                first = h;
            } else if h != first {
                one_chain = false;
            }
        }
    }
    if one_chain {
        return (1, 1, None);
    }
    let (mut edge, mut held, mut open) = (false, 0, None);
    for d in [
        c - STRIDE - 1,
        c - STRIDE + 1,
        c + STRIDE - 1,
        c + STRIDE + 1,
    ] {
        match board.stone(d) {
            BORDER => edge = true,
            // The attacker's stone there holds the diagonal unless the
            // owner can take it at once.
            s if s == opp && board.atari_point(board.head_of(d)).is_none() => held += 1,
            // An empty diagonal the attacker can take without being
            // taken at once; one where its stone would be in atari (a
            // point of the owner's other eye, say) is the owner's.
            0 if !self_atari(board, d, opp) => open = Some(d as u16),
            _ => {}
        }
    }
    let needed = if edge { 1 } else { 2 };
    if held >= needed {
        (0, 0, None)
    } else if held + 1 == needed && open.is_some() {
        (0, 1, open)
    } else {
        (1, 1, None)
    }
}

/// Whether a stone of `side` on the empty point `p` would have one
/// liberty or none (captures aside).
fn self_atari(board: &PlayoutBoard, p: usize, side: u8) -> bool {
    let mut found = [0usize; 2];
    let mut n = 0;
    let mut libs = [0usize; 3];
    for q in nbrs(p) {
        let t = board.stone(q);
        let more: &[usize] = if t == 0 {
            std::slice::from_ref(&q)
        } else if t == side {
            let k = board.liberties(board.head_of(q), &mut libs);
            &libs[..k]
        } else {
            &[]
        };
        for &l in more {
            if l != p && !found[..n].contains(&l) {
                found[n] = l;
                n += 1;
                if n == 2 {
                    return false;
                }
            }
        }
    }
    true
}

/// The most neighbours a cell has inside `cells`, a cell that has them,
/// and whether the cells hold a 2x2 square.
fn shape(cells: &[u16]) -> (u32, u16, bool) {
    let has = |c: usize| cells.contains(&(c as u16));
    let mut degree = 0;
    let mut best = cells[0];
    let mut square = false;
    for &c in cells {
        let c = usize::from(c);
        let d = nbrs(c).into_iter().filter(|&q| has(q)).count() as u32;
        if d > degree {
            degree = d;
            best = c as u16;
        }
        square |= has(c + 1) && has(c + STRIDE) && has(c + STRIDE + 1);
    }
    (degree, best, square)
}
