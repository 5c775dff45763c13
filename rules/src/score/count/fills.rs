//! Fills: the points an owner must still fill in its own territory for
//! its stones to live once the dame are filled, played out on a board.

use super::*;

impl Counter {
    /// Points `color` must fill in its own territory for its stones to live
    /// once the dame are filled. Dame filling alternates and each side
    /// answers threats, so the owner first takes every dame it can fill
    /// safely next to its threatened chains (connecting through dame costs
    /// nothing), then the opponent fills what it safely can there; a chain of
    /// `color` left with one liberty inside its own territory must fill it.
    /// Repeated until nothing changes. Marks the points as [`PointState::Fill`].
    ///
    /// Played out on an incremental [`Board`] so that each stone costs a few
    /// liberty lookups, not a relabelling of the whole position.
    pub(super) fn fills(&mut self, size: crate::BoardSize, color: Color) -> u32 {
        let n = size.points();
        let w = size.width() as usize;
        let at = |i: usize| Point::new((i % w) as u8, (i / w) as u8).expect("on the board");
        self.board.reset(size);
        for i in 0..n {
            if let Some(c) = self.cells[i] {
                let _ = self.board.set(at(i), Some(c));
            }
        }
        let opponent = color.other();
        let mut fills = 0;
        for _round in 0..n {
            let mut changed = false;
            for by in [color, opponent] {
                // Chains of `color` down to one liberty in their territory,
                // found once per pass: placements in between only add dame
                // stones, which never change a chain's territory liberties.
                if !self.find_threatened(size, color) {
                    break;
                }
                for i in 0..n {
                    let p = at(i);
                    if !matches!(self.states[i], PointState::Dame)
                        || self.seki_liberty[i]
                        || self.board.get(p).is_some()
                    {
                        continue;
                    }
                    let threatened = self.nb(i).any(|j| {
                        self.board.chain_id(at(j)).is_some_and(|id| {
                            self.board.get(at(j)) == Some(color)
                                && self.threatened[id.index()] == self.threat_gen
                        })
                    });
                    if threatened && self.board_can_fill(p, by) {
                        let _ = self.board.play(by, p);
                        changed = true;
                    }
                }
            }
            // Chains of `color` in atari whose last liberty is in its territory.
            self.seen_gen += 1;
            for i in 0..n {
                let p = at(i);
                if !self.first_visit(p, color) {
                    continue;
                }
                let mut libs = [None; 2];
                let mut count = 0;
                self.board.for_each_liberty(p, |q| {
                    if count < 2 {
                        libs[count] = Some(q);
                    }
                    count += 1;
                });
                if count != 1 {
                    continue;
                }
                let l = libs[0].expect("one liberty");
                let li = l.y() as usize * w + l.x() as usize;
                if self.is_own_territory(li, color) {
                    let _ = self.board.play(color, l);
                    self.states[li] = PointState::Fill(color);
                    fills += 1;
                    changed = true;
                    // Chain ids change with the stone just played.
                    self.seen_gen += 1;
                }
            }
            if !changed {
                break;
            }
        }
        fills
    }

    /// Whether `p` holds a stone of `color` whose chain this scan (since the
    /// last `seen_gen` bump) has not visited yet; marks it visited.
    pub(super) fn first_visit(&mut self, p: Point, color: Color) -> bool {
        if self.board.get(p) != Some(color) {
            return false;
        }
        let id = self.board.chain_id(p).expect("a stone").index();
        if self.seen_chains[id] == self.seen_gen {
            return false;
        }
        self.seen_chains[id] = self.seen_gen;
        true
    }

    /// Fills `self.threatened` with the chains of `color` on the fill board
    /// that have exactly one liberty inside `color`'s territory.
    pub(super) fn find_threatened(&mut self, size: crate::BoardSize, color: Color) -> bool {
        let w = size.width() as usize;
        self.threat_gen += 1;
        self.seen_gen += 1;
        let mut any = false;
        for i in 0..size.points() {
            let p = Point::new((i % w) as u8, (i / w) as u8).expect("on the board");
            if !self.first_visit(p, color) {
                continue;
            }
            if self.own_liberties(p, color) == 1 {
                let id = self.board.chain_id(p).expect("a stone").index();
                self.threatened[id] = self.threat_gen;
                any = true;
            }
        }
        any
    }

    /// Whether point `i` counts as `color`'s territory (seki eyes do not).
    pub(super) fn is_own_territory(&self, i: usize, color: Color) -> bool {
        self.own[i] == Some(color) && !matches!(self.states[i], PointState::SekiEye(_))
    }

    /// Liberties of the chain on `p` that lie in `color`'s territory.
    pub(super) fn own_liberties(&self, p: Point, color: Color) -> u32 {
        let w = self.board.size().width() as usize;
        let mut own = 0;
        self.board.for_each_liberty(p, |q| {
            if self.is_own_territory(q.y() as usize * w + q.x() as usize, color) {
                own += 1;
            }
        });
        own
    }

    /// Whether `by` can play the empty point `p` on the fill board leaving
    /// its chain at least two liberties, without capturing (a capturing dame
    /// is one the threatened side would have filled itself).
    pub(super) fn board_can_fill(&self, p: Point, by: Color) -> bool {
        let board = &self.board;
        let mut seen: [Option<Point>; 2] = [None; 2];
        let mut distinct = 0;
        let mut add = |q: Point| {
            if q != p && distinct < 2 && !seen[..distinct].contains(&Some(q)) {
                seen[distinct] = Some(q);
                distinct += 1;
            }
        };
        for q in board.neighbors(p) {
            match board.get(q) {
                None => add(q),
                Some(c) if c == by => board.for_each_liberty(q, &mut add),
                Some(_) => {
                    if board.liberties(q) == 1 {
                        return false;
                    }
                }
            }
        }
        distinct >= 2
    }

    /// For each colour, whether any of its chains has exactly one liberty
    /// inside its own territory. If none has, no fill can ever be needed: filling dame never
    /// takes a territory liberty away, and joining chains only unites their
    /// territory liberties, so a chain with none or with two or more never
    /// comes down to one liberty that lies in its own territory. Such a chain
    /// also needs a dame beside it (or to be in atari already): its other
    /// liberties are then seki liberties, which nobody fills. This keeps the
    /// dame simulation off almost every game.
    pub(super) fn fill_candidates(&mut self) -> ByColor<bool> {
        let mut any = ByColor::new(false, false);
        for c in 0..self.chains.len() {
            let chain = self.chains[c];
            let color = chain.color.expect("chains have a colour");
            if any[color] {
                continue;
            }
            self.generation += 1;
            let gen = self.generation;
            let (mut own, mut dame, mut all) = (0, 0, 0);
            for k in chain.start..chain.start + chain.len {
                let p = self.members[k as usize] as usize;
                for q in self.nb(p) {
                    if self.cells[q].is_none() && self.stamp[q] != gen {
                        self.stamp[q] = gen;
                        all += 1;
                        if self.is_own_territory(q, color) {
                            own += 1;
                        } else if matches!(self.states[q], PointState::Dame) {
                            dame += 1;
                        }
                    }
                }
            }
            // In atari already, or a dame the opponent may fill next to it.
            if own == 1 && (all == 1 || dame > 0) {
                any[color] = true;
            }
        }
        any
    }
}
