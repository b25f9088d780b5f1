/* The run of a flick (simulation/physics.py, FlickSimulation.run) in C: the loop between
 * Chipmunk's steps. physics.py builds the space, launches the flick, handles the collision
 * callbacks (which record the contacts) and assembles the result; this module chooses every
 * step (the horizon: how long the moving bodies can go before anything can touch; an impact
 * step cut at the touch), keeps friction off inside impact steps, brings the velocities back
 * to leapfrog after them, samples the frames and follows who is awake.
 *
 * It is the same arithmetic as the Python it replaced, operation for operation and in double
 * precision, so results are unchanged to the bit: build with -ffp-contract=off (no fused
 * multiply-adds), and math.hypot and round are Python's own (math.hypot differs from the C
 * library's in the last bit; round is the correctly rounded decimal one).
 *
 * Chipmunk is called through the function pointers of pymunk's cffi module, handed over once
 * by physics.py (`bind`): this module links against nothing but Python.
 *
 * Units: mm, s, mm/s, mm/s^2, rad/s throughout.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

typedef struct { double x, y; } cpVect;
typedef void cpSpace;
typedef void cpBody;
typedef void cpConstraint;

static void (*cp_space_step)(cpSpace *, double);
static void (*cp_space_set_current_time_step)(cpSpace *, double);
static cpBody *(*cp_space_get_static_body)(cpSpace *);
static cpConstraint *(*cp_space_add_constraint)(cpSpace *, cpConstraint *);
static cpVect (*cp_body_get_position)(cpBody *);
static cpVect (*cp_body_get_velocity)(cpBody *);
static void (*cp_body_set_velocity)(cpBody *, cpVect);
static double (*cp_body_get_angular_velocity)(cpBody *);
static void (*cp_body_set_angular_velocity)(cpBody *, double);
static unsigned char (*cp_body_is_sleeping)(cpBody *);
static cpConstraint *(*cp_pivot_joint_new2)(cpBody *, cpBody *, cpVect, cpVect);
static cpConstraint *(*cp_gear_joint_new)(cpBody *, cpBody *, double, double);
static void (*cp_constraint_set_max_force)(cpConstraint *, double);
static void (*cp_constraint_set_max_bias)(cpConstraint *, double);
static void (*cp_body_set_position)(cpBody *, cpVect);
static void (*cp_body_set_force)(cpBody *, cpVect);
static void (*cp_body_set_angle)(cpBody *, double);
static void (*cp_body_set_torque)(cpBody *, double);
static void (*cp_body_update_position)(cpBody *, double);
static void *(*cp_space_add_body)(cpSpace *, cpBody *);
static void *(*cp_space_add_shape)(cpSpace *, void *);
static void (*cp_space_remove_body)(cpSpace *, cpBody *);
static void (*cp_space_remove_shape)(cpSpace *, void *);
static void (*cp_space_remove_constraint)(cpSpace *, cpConstraint *);
static void (*cp_constraint_free)(cpConstraint *);
static cpSpace *(*cp_body_get_space)(cpBody *);

static int bound;           /* whether bind() has set the functions above */
static PyObject *hypot_fn;   /* math.hypot */
static PyObject *round_fn;   /* builtins.round */
static PyObject *s_addr, *s_key, *s_x, *s_y, *s_hx, *s_hy, *s_r, *s_ext, *s_decel, *s_alpha;
static PyObject *s_slide_f, *s_spin_f, *s_slide, *s_spin;
static PyObject *s_event, *s_after_event, *s_watch, *s_watched;

static int
check_bound(void)
{
    if (!bound)
        PyErr_SetString(PyExc_RuntimeError, "simulation._engine: bind() has not been called");
    return bound;
}

/* ---- geometry ---------------------------------------------------------------------------- */

static int
py_hypot(double x, double y, double *out)
{
    PyObject *res = PyObject_CallFunction(hypot_fn, "dd", x, y);
    if (res == NULL)
        return -1;
    *out = PyFloat_AsDouble(res);
    Py_DECREF(res);
    return 0;
}

/* Time for a point at p moving at w to reach the rounded box (half sizes hx, hy, corner
 * radius r) centred at the origin; INFINITY when it never does, 0 inside. */
static double
toi(double px, double py, double wx, double wy, double hx, double hy, double r)
{
    double ex = hx + r, ey = hy + r, t0 = 0.0, t1 = INFINITY, a, b;
    if (wx == 0.0) {
        if (px > ex || px < -ex)
            return INFINITY;
    }
    else {
        a = (-ex - px) / wx;
        b = (ex - px) / wx;
        if (a > b) { double s = a; a = b; b = s; }
        if (a > t0) t0 = a;
        if (b < t1) t1 = b;
    }
    if (wy == 0.0) {
        if (py > ey || py < -ey)
            return INFINITY;
    }
    else {
        a = (-ey - py) / wy;
        b = (ey - py) / wy;
        if (a > b) { double s = a; a = b; b = s; }
        if (a > t0) t0 = a;
        if (b < t1) t1 = b;
    }
    if (t0 > t1)
        return INFINITY;
    if (r > 0.0) {
        double qx = px + wx * t0, qy = py + wy * t0;
        if ((qx > hx || qx < -hx) && (qy > hy || qy < -hy)) {
            /* the entry lies beside a corner: the rounded corner decides */
            double cx = px - (qx > 0 ? hx : -hx);
            double cy = py - (qy > 0 ? hy : -hy);
            double c = cx * cx + cy * cy - r * r;
            if (c <= 0.0)
                return 0.0;
            double bb = cx * wx + cy * wy;
            if (bb >= 0.0)
                return INFINITY;
            double aa = wx * wx + wy * wy;
            double disc = bb * bb - aa * c;
            if (disc < 0.0)
                return INFINITY;
            return c / (-bb + sqrt(disc));
        }
    }
    return t0;
}

/* Distance from point p to the rounded box at the origin (negative inside). */
static double
gap_of(double px, double py, double hx, double hy, double r)
{
    double dx = fabs(px) - hx, dy = fabs(py) - hy;
    if (dx > 0.0 && dy > 0.0)
        return sqrt(dx * dx + dy * dy) - r;
    return (dx > dy ? dx : dy) - r;
}

/* Closing speed along the contact normal at time t of the approach computed by toi. */
static int
normal_speed(double px, double py, double wx, double wy, double hx, double hy, double t, double *out)
{
    double qx = px + wx * t, qy = py + wy * t;
    double dx = fabs(qx) - hx, dy = fabs(qy) - hy;
    if (dx > 0.0 && dy > 0.0) {
        double nx = qx > 0 ? dx : -dx, ny = qy > 0 ? dy : -dy, n;
        if (py_hypot(nx, ny, &n) < 0)
            return -1;
        *out = -(wx * nx + wy * ny) / n;
        return 0;
    }
    if (dx > dy)
        *out = qx > 0 ? -wx : wx;
    else
        *out = qy > 0 ? -wy : wy;
    return 0;
}

/* ---- the bodies of a flick ---------------------------------------------------------------- */

/* A piece during the run: what physics.py's _Body holds, and the run's own state. */
typedef struct {
    cpBody *cb;
    PyObject *rec;          /* the _Body (a strong reference, for the run) */
    PyObject *key;          /* its key (a strong reference, for the run) */
    double hx, hy, r, ext;  /* half sizes, corner radius, radius of a disc around it (mm) */
    double decel;           /* its sliding deceleration, mm/s^2 */
    double alpha;           /* its spin deceleration, rad/s^2 */
    double slide_f, spin_f; /* its friction joints' max forces */
    cpConstraint *slide, *spin;
    double x, y, vx, vy;    /* at the last snapshot */
    double slid;            /* s it slid without friction in the last step (woken in it) */
    int has_slid, loose, moving, awake;
} Bod;

/* Something that stays put, for the horizon: who is -1 for a fixed thing, else a body. */
typedef struct {
    double x, y, hx, hy, r, ext;
    int who;
} Obs;

#define NO_TARGET (-2)
#define FIXED_TARGET (-1)

typedef struct {
    double horizon;
    int land;               /* whether land_t and land_vn hold */
    double land_t, land_vn; /* the time at the present velocity to the touch, and its normal speed */
    int target;             /* what is struck (a body, FIXED_TARGET or NO_TARGET) */
} Horizon;

typedef struct {
    double H, lead, press, sx, sy;
} HorizonParams;

/* Two bodies touching already (gap <= 0), closing at w: the solver holds them apart; while
 * one presses on the other (a button squeezing the ball), the horizon keeps the overlap from
 * growing past `press`. */
static int
press_on(double px, double py, double wx, double wy, double HX, double HY, double gap,
         double press, Horizon *h)
{
    double vn;
    if (normal_speed(px, py, wx, wy, HX, HY, 0.0, &vn) < 0)
        return -1;
    if (vn > 0.0) {
        double tt = (press + gap) / vn;
        if (tt < h->horizon) {
            h->horizon = tt > 0.0 ? tt : 0.0;
            h->land = 1;
            h->land_t = h->horizon;
            h->land_vn = 0.0;
        }
    }
    return 0;
}

/* The earliest time from now at which a moving body can touch anything, at most `limit`,
 * and the pair that decides (see FlickSimulation docs in physics.py, "the horizon").
 *
 * Exact for a body sliding towards something at rest: it slides along its ray, slowing down
 * by its friction (with `friction`; a step without friction is a straight line), and the
 * positions Chipmunk gives at the ends of the steps lie on that curve (the stored velocity
 * leads by half a step of friction), so a thing it would stop short of is never reached.
 * Conservative for two moving bodies. O(movers x things near the ray): a thing beside or
 * behind the ray, or farther than the body can slide before the horizon, costs one test.
 * Returns -1 with a Python error set when math.hypot fails. */
static int
horizon(const Bod *bods, const int *movers, int nm, const Obs *obs, int no, double limit,
        int friction, const HorizonParams *hp, Horizon *out)
{
    double H = hp->H, press = hp->press, sx = hp->sx, sy = hp->sy;
    double lead = friction ? hp->lead : 0.0;
    Horizon h = {limit, 0, 0.0, 0.0, NO_TARGET};
    int target = NO_TARGET;

    for (int i = 0; i < nm; i++) {
        const Bod *b = &bods[movers[i]];
        double bvx = b->vx, bvy = b->vy, bx = b->x, by = b->y;
        double bhx = b->hx, bhy = b->hy, br = b->r, bext = b->ext;
        double speed = sqrt(bvx * bvx + bvy * bvy);
        if (speed == 0.0)
            continue;
        double ux = bvx / speed, uy = bvy / speed;
        double dec = friction ? b->decel : 0.0;
        double v0 = speed + dec * lead;  /* its speed now */
        double best;  /* how far it slides before the horizon, or before it stops */
        if (dec > 0.0 && h.horizon * dec >= v0)
            best = v0 * v0 / (2.0 * dec);
        else
            best = v0 * h.horizon - 0.5 * dec * h.horizon * h.horizon;
        int hit = 0, hit_who = NO_TARGET;
        double hit_vn = 0.0;
        /* the rim */
        double ex = sx - bhx - br, ey = sy - bhy - br, tt, ty, vn;
        if (bvx > 0)
            tt = (ex - bx) / bvx;
        else if (bvx < 0)
            tt = (-ex - bx) / bvx;
        else
            tt = INFINITY;
        if (bvy > 0)
            ty = (ey - by) / bvy;
        else if (bvy < 0)
            ty = (-ey - by) / bvy;
        else
            ty = INFINITY;
        if (ty < tt) {
            tt = ty;
            vn = fabs(bvy);
        }
        else
            vn = fabs(bvx);
        if (tt < INFINITY) {
            if (tt < 0.0)
                tt = 0.0;
            double d = tt * speed;
            if (d < best) {
                best = d;
                hit = 1;
                hit_vn = vn;
                hit_who = FIXED_TARGET;
            }
        }
        /* fixed things and bodies at rest: exact along the ray */
        for (int k = 0; k < no; k++) {
            const Obs *o = &obs[k];
            double px = bx - o->x, py = by - o->y;
            double ext = o->ext + bext;
            double along = -(px * ux + py * uy);
            if (along < -ext || along - ext > best)
                continue;
            double perp = px * uy - py * ux;
            if (perp > ext || perp < -ext)
                continue;
            double HX = o->hx + bhx, HY = o->hy + bhy, R = o->r + br;
            double gap = gap_of(px, py, HX, HY, R);
            if (gap <= 0.0) {
                if (press_on(px, py, bvx, bvy, HX, HY, gap, press, &h) < 0)
                    return -1;
                continue;
            }
            tt = toi(px, py, bvx, bvy, HX, HY, R);
            double d = tt * speed;
            if (d < best) {
                best = d;
                if (normal_speed(px, py, bvx, bvy, HX, HY, tt, &vn) < 0)
                    return -1;
                hit = 1;
                hit_vn = vn;
                hit_who = o->who;
            }
        }
        if (hit) {
            /* the time to slide `best` while slowing down */
            double th;
            if (dec > 0.0) {
                double disc = v0 * v0 - 2.0 * dec * best;
                th = disc >= 0.0 ? 2.0 * best / (v0 + sqrt(disc)) : INFINITY;
            }
            else
                th = best / v0;
            if (th < h.horizon) {
                h.horizon = th;
                h.land = 1;
                h.land_t = th;
                h.land_vn = dec > 0.0 ? hit_vn * (v0 - dec * th) / speed : hit_vn;
                target = hit_who;
            }
        }
        /* two moving bodies: their relative path bends by at most (a1 + a2) t^2 / 2 */
        for (int j = i + 1; j < nm; j++) {
            const Bod *o = &bods[movers[j]];
            double px = bx - o->x, py = by - o->y;
            double HX = o->hx + bhx, HY = o->hy + bhy, R = o->r + br;
            double gap = gap_of(px, py, HX, HY, R);
            double wx = bvx - o->vx, wy = bvy - o->vy;
            if (gap <= 0.0) {
                if (press_on(px, py, wx, wy, HX, HY, gap, press, &h) < 0)
                    return -1;
                continue;
            }
            double A = b->decel + o->decel;
            double w = sqrt(wx * wx + wy * wy);
            double t_safe = 2.0 * gap / (w + sqrt(w * w + 2.0 * A * gap));
            if (t_safe >= h.horizon)
                continue;
            double infl = 0.5 * A * H * H + 1e-9;
            double ts = gap <= infl ? 0.0 : toi(px, py, wx, wy, HX, HY, R + infl);
            if (ts >= H) {
                double cand = t_safe > H ? t_safe : H;
                if (cand < h.horizon) {
                    h.horizon = cand;
                    h.land = 1;
                    h.land_t = cand;
                    h.land_vn = 0.0;
                }
                continue;
            }
            double cand = t_safe > ts ? t_safe : ts;
            if (cand < h.horizon) {
                h.horizon = cand;
                target = NO_TARGET;
                tt = toi(px, py, wx, wy, HX, HY, R);
                h.land = 1;
                if (tt < INFINITY) {
                    h.land_t = tt;
                    if (normal_speed(px, py, wx, wy, HX, HY, tt, &h.land_vn) < 0)
                        return -1;
                }
                else {
                    h.land_t = cand;
                    h.land_vn = 0.0;
                }
            }
        }
    }
    h.target = (h.land && h.land_vn > 0.0) ? target : NO_TARGET;
    *out = h;
    return 0;
}

/* ---- friction ------------------------------------------------------------------------------ */

/* Fresh friction joints to the table (nothing stored in them), made when the body first moves
 * in a flick: a pivot joint for sliding and, for a disc, a gear joint for spin, with max bias
 * 0 and max force mu*m*g (PHYSICS_NOTES.md); max force 0 while the body is loose. run() hands
 * their addresses back to the _Body (the kit removes and frees them after the flick). */
static int
grip(cpSpace *space, Bod *b)
{
    cpBody *table = cp_space_get_static_body(space);
    double on = b->loose ? 0.0 : 1.0;
    cpVect zero = {0.0, 0.0};
    cpConstraint *slide = cp_pivot_joint_new2(table, b->cb, zero, zero);
    if (slide == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    cp_constraint_set_max_bias(slide, 0.0);
    cp_constraint_set_max_force(slide, on * b->slide_f);
    cpConstraint *spin = NULL;
    if (b->spin_f != 0.0) {
        spin = cp_gear_joint_new(table, b->cb, 0.0, 1.0);
        if (spin == NULL) {
            cp_constraint_free(slide);
            PyErr_NoMemory();
            return -1;
        }
        cp_constraint_set_max_bias(spin, 0.0);
        cp_constraint_set_max_force(spin, on * b->spin_f);
    }
    b->slide = slide;
    b->spin = spin;
    cp_space_add_constraint(space, slide);
    if (spin != NULL)
        cp_space_add_constraint(space, spin);
    return 0;
}

/* No friction in the next step (an impact step): the joints' force limits go to 0; hold()
 * restores them. Exact because every step starts with the space's previous step set to its
 * own size: the cached impulse applied at the start of the step is then the one stored, and
 * the clamp takes all of it back. */
static void
unhold(Bod *b)
{
    b->loose = 1;
    if (b->slide != NULL) {
        cp_constraint_set_max_force(b->slide, 0.0);
        if (b->spin != NULL)
            cp_constraint_set_max_force(b->spin, 0.0);
    }
}

/* Friction back after an impact step (the joints made if the body had none). */
static int
hold(cpSpace *space, Bod *b)
{
    b->loose = 0;
    if (b->slide == NULL)
        return grip(space, b);
    cp_constraint_set_max_force(b->slide, b->slide_f);
    if (b->spin != NULL)
        cp_constraint_set_max_force(b->spin, b->spin_f);
    return 0;
}

/* Moves the spin of b by its spin friction over dt (negative: slower), never through zero
 * (the angular counterpart of the leapfrog offsets of the velocities). */
static void
spin_by(Bod *b, double dt)
{
    double w = cp_body_get_angular_velocity(b->cb);
    if (w == 0.0 || b->alpha == 0.0)
        return;
    double m = fabs(w) + b->alpha * dt;
    cp_body_set_angular_velocity(b->cb, (m > 0.0 ? m : 0.0) * (w > 0.0 ? 1.0 : -1.0));
}

/* ---- frames -------------------------------------------------------------------------------- */

static int
rounded(double v, int digits, double *out)
{
    PyObject *f = PyFloat_FromDouble(v);
    if (f == NULL)
        return -1;
    PyObject *r = PyObject_CallFunction(round_fn, "Oi", f, digits);
    Py_DECREF(f);
    if (r == NULL)
        return -1;
    *out = PyFloat_AsDouble(r) + 0.0;  /* + 0.0: no negative zero */
    Py_DECREF(r);
    return 0;
}

/* Python's round(v, 1), fast where the tenth is certain: v * 10 is within half an ulp of the
 * exact product, so when it lies well away from a half the nearest integer is the one of the
 * exact value; the correctly rounded quotient by 10 is then what round() gives. */
static int
round1(double v, double *out)
{
    double y = v * 10.0;
    double n = nearbyint(y);
    double off = fabs(y - n);
    if (fabs(y) < 1e12 && off < 0.4999)
        *out = n / 10.0 + 0.0;
    else
        return rounded(v, 1, out);
    return 0;
}

/* One frame: (time, ball position, {key: position} of the bodies that moved since the last
 * frame), positions rounded to 0.1 mm; last_frame is brought up to date. */
static PyObject *
make_frame(double ft, const Bod *bods, const int *awake, int na, int ball, PyObject *last_frame)
{
    double rt;
    if (rounded(ft, 4, &rt) < 0)
        return NULL;
    PyObject *ball_key = bods[ball].key;
    PyObject *moved = PyDict_New();
    if (moved == NULL)
        return NULL;
    PyObject *ball_pos = PyDict_GetItemWithError(last_frame, ball_key);
    if (ball_pos == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_KeyError, ball_key);
        Py_DECREF(moved);
        return NULL;
    }
    Py_INCREF(ball_pos);
    for (int i = 0; i < na; i++) {
        const Bod *b = &bods[awake[i]];
        double x, y;
        cpVect q = cp_body_get_position(b->cb);
        if (round1(q.x, &x) < 0 || round1(q.y, &y) < 0)
            goto fail;
        PyObject *p = Py_BuildValue("(dd)", x, y);
        if (p == NULL)
            goto fail;
        int err = 0;
        if (awake[i] == ball) {
            Py_SETREF(ball_pos, Py_NewRef(p));
            err = PyDict_SetItem(last_frame, ball_key, p);
        }
        else {
            PyObject *before = PyDict_GetItemWithError(last_frame, b->key);
            int same = 0;
            if (before == NULL && PyErr_Occurred())
                err = -1;
            else if (before != NULL) {
                Py_INCREF(before);
                same = PyObject_RichCompareBool(before, p, Py_EQ);
                Py_DECREF(before);
                if (same < 0)
                    err = -1;
            }
            if (!err && !same)
                err = PyDict_SetItem(moved, b->key, p) || PyDict_SetItem(last_frame, b->key, p);
        }
        Py_DECREF(p);
        if (err)
            goto fail;
    }
    return Py_BuildValue("(dNN)", rt, ball_pos, moved);
fail:
    Py_DECREF(ball_pos);
    Py_DECREF(moved);
    return NULL;
}

/* ---- the run ------------------------------------------------------------------------------- */

static int
get_double(PyObject *obj, PyObject *name, double *out)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    *out = PyFloat_AsDouble(v);
    Py_DECREF(v);
    return (*out == -1.0 && PyErr_Occurred()) ? -1 : 0;
}

static int
get_pointer(PyObject *obj, PyObject *name, void **out)
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    *out = v == Py_None ? NULL : PyLong_AsVoidPtr(v);
    Py_DECREF(v);
    return PyErr_Occurred() ? -1 : 0;
}

static int
read_bod(PyObject *rec, Bod *b)
{
    void *cb, *slide, *spin;
    memset(b, 0, sizeof(*b));
    if (get_pointer(rec, s_addr, &cb) || get_pointer(rec, s_slide, &slide)
        || get_pointer(rec, s_spin, &spin) || get_double(rec, s_x, &b->x)
        || get_double(rec, s_y, &b->y) || get_double(rec, s_hx, &b->hx)
        || get_double(rec, s_hy, &b->hy) || get_double(rec, s_r, &b->r)
        || get_double(rec, s_ext, &b->ext) || get_double(rec, s_decel, &b->decel)
        || get_double(rec, s_alpha, &b->alpha) || get_double(rec, s_slide_f, &b->slide_f)
        || get_double(rec, s_spin_f, &b->spin_f))
        return -1;
    b->cb = cb;
    b->slide = slide;
    b->spin = spin;
    return 0;
}

static int
is_set(PyObject *sim, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(sim, name);
    if (v == NULL)
        return -1;
    int on = PyObject_IsTrue(v);
    Py_DECREF(v);
    return on;
}

/* sim.name(a) or sim.name(a, b), with floats a and b; a new reference. */
static PyObject *
call_method(PyObject *sim, PyObject *name, double a, double b, int nargs)
{
    PyObject *fa = PyFloat_FromDouble(a), *fb = PyFloat_FromDouble(b), *r = NULL;
    if (fa != NULL && fb != NULL)
        r = PyObject_CallMethodObjArgs(sim, name, fa, nargs == 2 ? fb : NULL, NULL);
    Py_XDECREF(fa);
    Py_XDECREF(fb);
    return r;
}

typedef struct {
    /* what run() is given */
    PyObject *sim, *frame_list, *last_frame, *sizes;
    cpSpace *space;
    Bod *bods;
    int nb, ball;
    Obs *fixed;
    int nfixed;
    HorizonParams hp;
    double cap, vlimit2, depth, min_step, decel_half, frame_dt;
    /* the run's state */
    int *awake, na;
    int *movers, nm;
    Obs *obs;         /* the fixed things, the bodies asleep, then the awake ones not moving */
    int nstill;       /* how many of obs stay valid from one chunk to the next (-1: none) */
    int *woken, nwoken;
    double t, next_frame, bmin_x, bmax_x, bmax_r;
    long long frame_no, steps;
} Run;

static void
obstacle_of(const Bod *b, int who, Obs *o)
{
    o->x = b->x;
    o->y = b->y;
    o->hx = b->hx;
    o->hy = b->hy;
    o->r = b->r;
    o->ext = b->ext;
    o->who = who;
}

/* The obstacles: the fixed things and the bodies asleep (kept while nobody wakes or falls
 * asleep), then the awake bodies that do not move. Returns their number. */
static int
obstacles(Run *R)
{
    if (R->nstill < 0) {
        int n = R->nfixed;
        memcpy(R->obs, R->fixed, sizeof(Obs) * R->nfixed);
        for (int i = 0; i < R->nb; i++)
            if (!R->bods[i].awake)
                obstacle_of(&R->bods[i], i, &R->obs[n++]);
        R->nstill = n;
    }
    int n = R->nstill;
    for (int i = 0; i < R->na; i++) {
        const Bod *b = &R->bods[R->awake[i]];
        if (!b->moving)
            obstacle_of(b, R->awake[i], &R->obs[n++]);
    }
    return n;
}

static int
wake(Run *R, int idx, double ct)
{
    Bod *b = &R->bods[idx];
    if (b->awake)
        return 0;
    b->awake = 1;
    R->awake[R->na++] = idx;
    R->woken[R->nwoken++] = idx;
    if (b->slide == NULL && !b->loose) {
        /* it had no friction joints yet: it slid without friction since the touch */
        if (grip(R->space, b) < 0)
            return -1;
        b->slid = R->t - ct;
        b->has_slid = 1;
    }
    return 0;
}

/* After a step in which a collision callback ran: physics.py records the contacts and gives
 * back (body index, contact time) for each body touched, in order; those asleep wake. */
static int
after_event(Run *R, double dt)
{
    PyObject *touched = call_method(R->sim, s_after_event, R->t, dt, 2);
    if (touched == NULL)
        return -1;
    if (!PyList_Check(touched)) {
        Py_DECREF(touched);
        PyErr_SetString(PyExc_TypeError, "_after_event must return a list");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(touched); i++) {
        int idx;
        double ct;
        PyObject *item = Py_NewRef(PyList_GET_ITEM(touched, i));
        int ok = PyTuple_Check(item) && PyArg_ParseTuple(item, "id", &idx, &ct);
        if (!ok && !PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "_after_event must return (index, time) tuples");
        Py_DECREF(item);
        if (!ok) {
            Py_DECREF(touched);
            return -1;
        }
        if (idx < 0 || idx >= R->nb) {
            Py_DECREF(touched);
            PyErr_Format(PyExc_IndexError, "no body %d", idx);
            return -1;
        }
        if (wake(R, idx, ct) < 0) {
            Py_DECREF(touched);
            return -1;
        }
    }
    Py_DECREF(touched);
    return 0;
}

/* Runs up to n steps of dt: stops after the step in which a collision callback set
 * sim._event, and, at each frame time, appends a frame and stops when an awake body has
 * fallen asleep. Returns the steps done, or -1 with a Python error set. */
static long long
advance(Run *R, double dt, long long n)
{
    cpBody *ball_cb = R->bods[R->ball].cb;
    long long done = 0;
    int ended = 0;
    while (done < n) {
        long long m = n - done;
        long long nf = (long long)((R->next_frame - R->t) / dt - 1e-9) + 1;
        if (nf < 1)
            nf = 1;
        if (nf < m)
            m = nf;
        long long k = 0;
        int event = 0;
        while (k < m) {
            cp_space_step(R->space, dt);
            k += 1;
            if ((event = is_set(R->sim, s_event)) != 0)
                break;
        }
        if (event < 0)
            return -1;
        done += k;
        R->t = R->t + dt * (double)k;
        if (event) {
            if (after_event(R, dt) < 0)
                return -1;
            ended = 1;
        }
        cpVect p = cp_body_get_position(ball_cb);
        double bx = p.x, by = p.y, rr;
        if (bx < R->bmin_x)
            R->bmin_x = bx;
        if (bx > R->bmax_x)
            R->bmax_x = bx;
        if (py_hypot(bx, by, &rr) < 0)
            return -1;
        if (rr > R->bmax_r)
            R->bmax_r = rr;
        int watching = is_set(R->sim, s_watch);
        if (watching < 0)
            return -1;
        if (watching) {
            PyObject *r = call_method(R->sim, s_watched, R->t, 0.0, 1);
            if (r == NULL)
                return -1;
            Py_DECREF(r);
        }
        if (R->t >= R->next_frame - 1e-12) {
            if (R->frame_list != Py_None) {
                PyObject *frame = make_frame((double)R->frame_no * R->frame_dt, R->bods, R->awake,
                                             R->na, R->ball, R->last_frame);
                if (frame == NULL)
                    return -1;
                int err = PyList_Append(R->frame_list, frame);
                Py_DECREF(frame);
                if (err < 0)
                    return -1;
            }
            R->frame_no += 1;
            R->next_frame = (double)R->frame_no * R->frame_dt;
            for (int i = 0; i < R->na; i++) {
                if (cp_body_is_sleeping(R->bods[R->awake[i]].cb)) {
                    ended = 1;  /* one came to rest: see who still moves */
                    break;
                }
            }
        }
        if (ended)
            break;
    }
    return done;
}

static double
clamp_step(double dt, double H, double min_step)
{
    if (dt > H)
        dt = H;
    if (dt < H * min_step)
        dt = H * min_step;
    return dt;
}

/* The loop of the run; returns 1 when capped, 0 when all came to rest, -1 on an error. */
static int
run_loop(Run *R, int flicked)
{
    const double H = R->hp.H, cap = R->cap, depth = R->depth, decel_half = R->decel_half;
    int have_last_dt = 0, nrebias = 0;
    double last_dt = 0.0, t_lin = 0.0, t_touch = 0.0;
    int *rebias = R->woken;  /* the bodies whose velocities go back to leapfrog */
    int *freed = PyMem_Calloc(R->nb + 1, sizeof(int));
    int *moving_now = PyMem_Calloc(R->nb + 1, sizeof(int));
    int nfreed = 0, status = -1;
    if (freed == NULL || moving_now == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    R->bods[flicked].awake = 1;
    R->awake[0] = flicked;
    R->na = 1;
    R->nstill = -1;
    for (;;) {
        /* snapshot the moving bodies (awake bodies only: O(awake)) */
        R->nm = 0;
        for (int i = 0; i < R->na; i++) {
            Bod *b = &R->bods[R->awake[i]];
            cpVect p = cp_body_get_position(b->cb);
            b->x = p.x;
            b->y = p.y;
            cpVect v = cp_body_get_velocity(b->cb);
            double vx = b->vx = v.x, vy = b->vy = v.y;
            if (vx * vx + vy * vy > 1e-18) {
                if (vx * vx + vy * vy > R->vlimit2) {  /* a solver blow-up, never a flick: tame it */
                    double k = sqrt(R->vlimit2 / (vx * vx + vy * vy));
                    b->vx = vx * k;
                    b->vy = vy * k;
                    cp_body_set_velocity(b->cb, (cpVect){b->vx, b->vy});
                }
                b->moving = 1;
                R->movers[R->nm++] = R->awake[i];
            }
            else
                b->moving = 0;
        }
        int no = obstacles(R);
        Horizon hz;
        if (horizon(R->bods, R->movers, R->nm, R->obs, no, cap - R->t, 1, &R->hp, &hz) < 0)
            goto out;
        /* choose the chunk */
        double dt, vn = 0.0;
        long long n;
        int cut;
        if (hz.horizon >= H) {
            dt = H;
            n = hz.horizon < INFINITY ? (long long)(hz.horizon / H) : (1LL << 30);
            cut = 0;
        }
        else {
            t_lin = hz.land ? hz.land_t : hz.horizon;
            vn = hz.land ? hz.land_vn : 0.0;
            if (vn > 1e-9 && t_lin < H)
                dt = t_lin + depth / vn;
            else
                dt = hz.horizon;
            dt = clamp_step(dt, H, R->min_step);
            n = 1;
            cut = dt < H && vn > 1e-9 && t_lin < H;  /* an impact step, not a press */
        }
        long long n_cap = (long long)((cap - R->t) / dt + 0.5);
        if (n > n_cap)
            n = n_cap;
        if (n < 1) {
            status = 1;
            goto out;
        }
        int impact = cut && decel_half != 0.0;
        if (impact) {
            /* an impact step: the bodies meet with their physical velocities at the touch
             * (Chipmunk bounces them off the velocities they start the step with), and the
             * step is re-aimed with those velocities */
            int keep = 0;
            for (int i = 0; i < R->nm; i++) {
                Bod *b = &R->bods[R->movers[i]];
                double s;
                if (py_hypot(b->vx, b->vy, &s) < 0)
                    goto out;
                double k = (s + b->decel * (decel_half - t_lin)) / s;
                if (k < 0.0)
                    k = 0.0;
                b->vx *= k;
                b->vy *= k;
                cp_body_set_velocity(b->cb, (cpVect){b->vx, b->vy});
                spin_by(b, decel_half - t_lin);
                if (k == 0.0)
                    b->moving = 0;  /* it stops before the touch: an obstacle now */
                else
                    R->movers[keep++] = R->movers[i];
            }
            R->nm = keep;
            no = obstacles(R);
            if (horizon(R->bods, R->movers, R->nm, R->obs, no, cap - R->t, 0, &R->hp, &hz) < 0)
                goto out;
            t_lin = hz.land ? hz.land_t : hz.horizon;
            vn = hz.land ? hz.land_vn : 0.0;
            dt = vn > 1e-9 && t_lin < H ? t_lin + depth / vn : hz.horizon;
            dt = clamp_step(dt, H, R->min_step);
            /* no friction joints inside the impact step, for the movers and the body struck: a
             * joint's impulse (max_force * dt) would be fought by the contact's (which holds
             * the bounce), so the impact would depend on dt; friction for the step is
             * accounted for after it */
            nfreed = 0;
            for (int i = 0; i < R->nm; i++)
                freed[nfreed++] = R->movers[i];
            if (hz.target >= 0 && !R->bods[hz.target].moving)
                freed[nfreed++] = hz.target;
            for (int i = 0; i < nfreed; i++)
                unhold(&R->bods[freed[i]]);
            t_touch = t_lin < dt ? t_lin : dt;
        }
        if (!have_last_dt || dt != last_dt) {
            /* a change of step: Chipmunk warm starts every joint and lasting contact with its
             * stored impulse times (step / previous step) but clamps the stored one unscaled,
             * so a kept friction joint would push its body by max_force * (previous step -
             * step) and a pressed contact would be shot apart. With the previous step set to
             * this one, the warm start is the stored impulse itself, which the solver's clamp
             * fully controls. */
            cp_space_set_current_time_step(R->space, dt);
        }
        /* run the chunk; frames and rest are checked on the way, the horizon stays valid */
        R->nwoken = 0;
        long long done = advance(R, dt, n);
        if (done < 0)
            goto out;
        nrebias = R->nwoken;
        if (nrebias)
            R->nstill = -1;
        if (done) {
            PyObject *step = PyFloat_FromDouble(dt);
            if (step == NULL)
                goto out;
            for (long long i = 0; i < done; i++) {
                if (PyList_Append(R->sizes, step) < 0) {
                    Py_DECREF(step);
                    goto out;
                }
            }
            Py_DECREF(step);
            last_dt = dt;
            have_last_dt = 1;
        }
        R->steps += done;
        if (impact) {
            for (int i = 0; i < nfreed; i++)
                if (hold(R->space, &R->bods[freed[i]]) < 0)
                    goto out;
            /* freed first, then the bodies woken in the step that were not moving */
            int m = 0;
            for (int i = 0; i < nrebias; i++) {
                int idx = rebias[i], in_freed = 0;
                for (int j = 0; j < nfreed; j++)
                    in_freed |= freed[j] == idx;
                if (!R->bods[idx].moving && !in_freed)
                    moving_now[m++] = idx;
            }
            memmove(rebias + nfreed, moving_now, sizeof(int) * m);
            memcpy(rebias, freed, sizeof(int) * nfreed);
            nrebias = nfreed + m;
        }
        if (nrebias) {
            /* back to leapfrog: the stored velocity is the one half a step ahead; after a
             * frictionless impact step, the velocity is the one at the touch, and the time
             * since the touch slid with friction too */
            double after = impact ? dt - t_touch : 0.0;
            for (int i = 0; i < nrebias; i++) {
                Bod *b = &R->bods[rebias[i]];
                double lag = decel_half + (b->has_slid ? b->slid : after);
                b->has_slid = 0;
                cpVect v = cp_body_get_velocity(b->cb);
                double vx = v.x, vy = v.y, s;
                if (py_hypot(vx, vy, &s) < 0)
                    goto out;
                if (s > 0.0) {
                    double s2 = s - b->decel * lag;
                    double k = s2 > 0.0 ? s2 / s : 0.0;
                    cp_body_set_velocity(b->cb, (cpVect){vx * k, vy * k});
                }
                spin_by(b, -lag);
            }
        }
        /* who still moves */
        int m = 0;
        for (int i = 0; i < R->na; i++) {
            Bod *b = &R->bods[R->awake[i]];
            if (cp_body_is_sleeping(b->cb)) {
                cpVect p = cp_body_get_position(b->cb);
                b->x = p.x;
                b->y = p.y;
                b->vx = b->vy = 0.0;
                b->moving = 0;
                b->awake = 0;
            }
            else
                R->awake[m++] = R->awake[i];
        }
        if (m != R->na) {
            R->na = m;
            R->nstill = -1;
        }
        if (R->na == 0) {
            status = 0;
            goto out;
        }
        if (R->t >= cap - 1e-12) {
            status = 1;
            goto out;
        }
    }
out:
    PyMem_Free(freed);
    PyMem_Free(moving_now);
    return status;
}

/* Sets the addresses of the friction joints made in the run on the _Body objects (whatever
 * error is pending is kept). */
static int
give_joints(const Bod *bods, int nb)
{
    PyObject *type, *value, *tb;
    int err = 0;
    PyErr_Fetch(&type, &value, &tb);
    for (int i = 0; i < nb && !err; i++) {
        if (bods[i].rec == NULL)
            break;  /* not read: nothing made */
        PyObject *rec = bods[i].rec;
        PyObject *slide = bods[i].slide ? PyLong_FromVoidPtr(bods[i].slide) : Py_NewRef(Py_None);
        PyObject *spin = bods[i].spin ? PyLong_FromVoidPtr(bods[i].spin) : Py_NewRef(Py_None);
        err = slide == NULL || spin == NULL || PyObject_SetAttr(rec, s_slide, slide) < 0
              || PyObject_SetAttr(rec, s_spin, spin) < 0;
        Py_XDECREF(slide);
        Py_XDECREF(spin);
    }
    if (type != NULL) {
        if (err)
            PyErr_Clear();
        PyErr_Restore(type, value, tb);
        return 0;
    }
    return err ? -1 : 0;
}

PyDoc_STRVAR(run_doc,
"run(sim, space, bodies, flicked, ball, fixed, params, frame_list, last_frame, sizes)\n"
"-> (t, steps, capped, bmin_x, bmax_x, bmax_r)\n\n"
"Resolves a launched flick on the Chipmunk space at address `space` until all is at rest or\n"
"the cap (FlickSimulation.run's loop).\n\n"
"bodies: physics._Body objects in the order they were added (each with addr, x, y, hx, hy,\n"
"r, ext, decel, alpha, slide_f, spin_f, slide, spin, key); flicked, ball: indices in\n"
"bodies; fixed: (x, y, half x, half y, corner radius, extent) of the fixed things;\n"
"params: (base step s, cap s, the square of the largest speed (mm/s)^2, land depth mm, press depth mm, min step\n"
"(fraction of the base step), half kick, the half length and half width of the surface mm).\n"
"frame_list: the frames are appended to it (None: no frames); last_frame: {key: position},\n"
"kept up to date; sizes: each step's size is appended. The addresses of the friction joints\n"
"made are set on the bodies (slide, spin): the caller removes and frees them.\n"
"Calls sim._after_event(t, dt) after a step in which sim._event was set (it returns\n"
"[(body index, contact time)] of the bodies touched), and sim._watched(t) while sim._watch\n"
"is not empty.\n"
"Returns the simulated time s, the steps, whether capped, and the ball's extremes in mm.");

static PyObject *
run(PyObject *self, PyObject *args)
{
    if (!check_bound())
        return NULL;
    PyObject *sim, *space_addr, *bodies, *fixed, *frame_list, *last_frame, *sizes;
    int flicked, ball, half_kick;
    Run R;
    memset(&R, 0, sizeof(R));
    if (!PyArg_ParseTuple(args, "OOO!iiO!(ddddddpdd)OO!O!", &sim, &space_addr, &PyList_Type,
                          &bodies, &flicked, &ball, &PyList_Type, &fixed, &R.hp.H, &R.cap,
                          &R.vlimit2, &R.depth, &R.hp.press, &R.min_step, &half_kick,
                          &R.hp.sx, &R.hp.sy, &frame_list, &PyDict_Type, &last_frame,
                          &PyList_Type, &sizes))
        return NULL;
    if (frame_list != Py_None && !PyList_Check(frame_list)) {
        PyErr_SetString(PyExc_TypeError, "frame_list must be a list or None");
        return NULL;
    }
    R.space = PyLong_AsVoidPtr(space_addr);
    if (PyErr_Occurred())
        return NULL;
    Py_ssize_t nb = PyList_GET_SIZE(bodies), nfixed = PyList_GET_SIZE(fixed);
    if (nb < 1 || nb > 1000 || nfixed > 1000 || flicked < 0 || flicked >= nb || ball < 0 || ball >= nb) {
        PyErr_SetString(PyExc_ValueError, "bodies, flicked or ball out of range");
        return NULL;
    }
    R.sim = sim;
    R.frame_list = frame_list;
    R.last_frame = last_frame;
    R.sizes = sizes;
    R.nb = (int)nb;
    R.ball = ball;
    R.nfixed = (int)nfixed;
    R.decel_half = half_kick ? 0.5 * R.hp.H : 0.0;
    R.hp.lead = half_kick ? 0.5 * R.hp.H : 0.0;
    R.frame_dt = 1.0 / 30.0;
    /* the step counts are cast to integers: the values must keep them finite and in range */
    if (!(R.hp.H > 0.0 && isfinite(R.hp.H) && R.cap >= 0.0 && isfinite(R.cap) && R.min_step > 0.0
          && R.min_step <= 1.0 && R.cap / (R.hp.H * R.min_step) < 1e15 && R.depth >= 0.0
          && isfinite(R.depth) && R.hp.press >= 0.0 && isfinite(R.hp.press) && R.vlimit2 > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "the stepping is out of range: base step > 0, cap >= 0 and "
                        "finite, 0 < min step <= 1, cap / (base step * min step) < 1e15, depths >= 0, "
                        "speed limit > 0");
        return NULL;
    }
    R.bods = PyMem_Calloc(nb, sizeof(Bod));
    R.fixed = PyMem_Calloc(nfixed + 1, sizeof(Obs));
    R.obs = PyMem_Calloc(nfixed + nb + 1, sizeof(Obs));
    R.awake = PyMem_Calloc(nb, sizeof(int));
    R.movers = PyMem_Calloc(nb, sizeof(int));
    R.woken = PyMem_Calloc(2 * nb + 1, sizeof(int));
    PyObject *result = NULL;
    if (!R.bods || !R.fixed || !R.obs || !R.awake || !R.movers || !R.woken) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < nb; i++) {
        PyObject *rec = PyList_GET_ITEM(bodies, i);
        if (read_bod(rec, &R.bods[i]) < 0)
            goto out;
        if ((R.bods[i].key = PyObject_GetAttr(rec, s_key)) == NULL)
            goto out;
        R.bods[i].rec = Py_NewRef(rec);
    }
    for (Py_ssize_t i = 0; i < nfixed; i++) {
        Obs *o = &R.fixed[i];
        if (!PyArg_ParseTuple(PyList_GET_ITEM(fixed, i), "dddddd", &o->x, &o->y, &o->hx, &o->hy,
                              &o->r, &o->ext))
            goto out;
        o->who = FIXED_TARGET;
    }
    const Bod *bb = &R.bods[ball];
    R.bmin_x = R.bmax_x = bb->x;
    if (py_hypot(bb->x, bb->y, &R.bmax_r) < 0)
        goto out;
    R.next_frame = R.frame_dt;
    R.frame_no = 1;
    int capped = run_loop(&R, flicked);
    if (capped < 0)
        goto out;
    result = Py_BuildValue("(dLNddd)", R.t, R.steps, PyBool_FromLong(capped), R.bmin_x, R.bmax_x,
                           R.bmax_r);
out:
    if (R.bods != NULL) {
        if (give_joints(R.bods, R.nb) < 0)
            Py_CLEAR(result);
        for (int i = 0; i < R.nb; i++) {
            Py_XDECREF(R.bods[i].rec);
            Py_XDECREF(R.bods[i].key);
        }
    }
    PyMem_Free(R.bods);
    PyMem_Free(R.fixed);
    PyMem_Free(R.obs);
    PyMem_Free(R.awake);
    PyMem_Free(R.movers);
    PyMem_Free(R.woken);
    return result;
}

PyDoc_STRVAR(grip_doc,
"grip(space, body, slide_f, spin_f) -> (slide, spin)\n\n"
"Fresh friction joints between the table and the Chipmunk body at address `body`, added to\n"
"the space at address `space`: a pivot joint for sliding (max force slide_f) and, when spin_f\n"
"is not 0, a gear joint for spin (max force spin_f), both with max bias 0. Returns their\n"
"addresses (spin: None when there is none); the caller removes and frees them.");

static PyObject *
grip_py(PyObject *self, PyObject *args)
{
    if (!check_bound())
        return NULL;
    PyObject *space_addr, *body_addr;
    Bod b;
    memset(&b, 0, sizeof(b));
    if (!PyArg_ParseTuple(args, "OOdd", &space_addr, &body_addr, &b.slide_f, &b.spin_f))
        return NULL;
    cpSpace *space = PyLong_AsVoidPtr(space_addr);
    b.cb = PyLong_AsVoidPtr(body_addr);
    if (PyErr_Occurred())
        return NULL;
    if (grip(space, &b) < 0)
        return NULL;
    if (b.spin == NULL)
        return Py_BuildValue("(NO)", PyLong_FromVoidPtr(b.slide), Py_None);
    return Py_BuildValue("(NN)", PyLong_FromVoidPtr(b.slide), PyLong_FromVoidPtr(b.spin));
}

/* ---- placing the pieces ------------------------------------------------------------------- */

PyDoc_STRVAR(place_doc,
"place(space, body, shape, x, y, turns)\n\n"
"Puts the Chipmunk body and its shape (addresses) in the space (address) at (x, y) mm, at\n"
"rest: no velocity, no force, no bias velocity left by the solver and, when it turns, angle\n"
"0, no spin and no torque. The body goes in before its shape, as pymunk adds them.");

static PyObject *
place(PyObject *self, PyObject *args)
{
    if (!check_bound())
        return NULL;
    PyObject *space_addr, *body_addr, *shape_addr;
    double x, y;
    int turns;
    if (!PyArg_ParseTuple(args, "OOOddp", &space_addr, &body_addr, &shape_addr, &x, &y, &turns))
        return NULL;
    cpSpace *space = PyLong_AsVoidPtr(space_addr);
    cpBody *cb = PyLong_AsVoidPtr(body_addr);
    void *shape = PyLong_AsVoidPtr(shape_addr);
    if (PyErr_Occurred())
        return NULL;
    if (!isfinite(x) || !isfinite(y)) {
        PyErr_Format(PyExc_ValueError, "not a finite position: (%R, %R)", PyTuple_GET_ITEM(args, 3),
                     PyTuple_GET_ITEM(args, 4));
        return NULL;
    }
    if (cp_body_get_space(cb) != NULL) {
        PyErr_SetString(PyExc_ValueError, "the body is in a space already");
        return NULL;
    }
    cpVect zero = {0.0, 0.0};
    cp_body_set_position(cb, (cpVect){x, y});
    cp_body_set_velocity(cb, zero);
    cp_body_update_position(cb, 0.0);  /* zeroes the solver's bias velocities */
    cp_body_set_force(cb, zero);
    if (turns) {
        cp_body_set_angle(cb, 0.0);
        cp_body_set_angular_velocity(cb, 0.0);
        cp_body_set_torque(cb, 0.0);
    }
    cp_space_add_body(space, cb);
    cp_space_add_shape(space, shape);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(take_out_doc,
"take_out(space, pieces) -> finite\n\n"
"Takes each (body, shape, slide, spin) of `pieces` (addresses; slide and spin the friction\n"
"joints or None) out of the space, in order: its joints, removed and freed, then the body and\n"
"its shape. Returns False when a body was at a position that is not a finite number.");

static PyObject *
take_out(PyObject *self, PyObject *args)
{
    if (!check_bound())
        return NULL;
    PyObject *space_addr, *pieces;
    if (!PyArg_ParseTuple(args, "OO!", &space_addr, &PyList_Type, &pieces))
        return NULL;
    cpSpace *space = PyLong_AsVoidPtr(space_addr);
    if (PyErr_Occurred())
        return NULL;
    int finite = 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pieces); i++) {
        PyObject *body_addr, *shape_addr, *slide_addr, *spin_addr;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(pieces, i), "OOOO", &body_addr, &shape_addr,
                              &slide_addr, &spin_addr))
            return NULL;
        cpBody *cb = PyLong_AsVoidPtr(body_addr);
        void *shape = PyLong_AsVoidPtr(shape_addr);
        cpConstraint *slide = slide_addr == Py_None ? NULL : PyLong_AsVoidPtr(slide_addr);
        cpConstraint *spin = spin_addr == Py_None ? NULL : PyLong_AsVoidPtr(spin_addr);
        if (PyErr_Occurred())
            return NULL;
        cpVect p = cp_body_get_position(cb);
        if (!isfinite(p.x) || !isfinite(p.y))
            finite = 0;
        if (slide != NULL) {
            cp_space_remove_constraint(space, slide);
            cp_constraint_free(slide);
        }
        if (spin != NULL) {
            cp_space_remove_constraint(space, spin);
            cp_constraint_free(spin);
        }
        cp_space_remove_body(space, cb);
        cp_space_remove_shape(space, shape);
    }
    return PyBool_FromLong(finite);
}

/* ---- binding ----------------------------------------------------------------------------- */

/* Every Chipmunk function this module calls, bound by name. */
static const struct { const char *name; void **slot; } fns[] = {
    {"cpSpaceStep", (void **)&cp_space_step},
    {"cpSpaceSetCurrentTimeStep", (void **)&cp_space_set_current_time_step},
    {"cpSpaceGetStaticBody", (void **)&cp_space_get_static_body},
    {"cpSpaceAddConstraint", (void **)&cp_space_add_constraint},
    {"cpBodyGetPosition", (void **)&cp_body_get_position},
    {"cpBodyGetVelocity", (void **)&cp_body_get_velocity},
    {"cpBodySetVelocity", (void **)&cp_body_set_velocity},
    {"cpBodyGetAngularVelocity", (void **)&cp_body_get_angular_velocity},
    {"cpBodySetAngularVelocity", (void **)&cp_body_set_angular_velocity},
    {"cpBodyIsSleeping", (void **)&cp_body_is_sleeping},
    {"cpPivotJointNew2", (void **)&cp_pivot_joint_new2},
    {"cpGearJointNew", (void **)&cp_gear_joint_new},
    {"cpConstraintSetMaxForce", (void **)&cp_constraint_set_max_force},
    {"cpConstraintSetMaxBias", (void **)&cp_constraint_set_max_bias},
    {"cpBodySetPosition", (void **)&cp_body_set_position},
    {"cpBodySetForce", (void **)&cp_body_set_force},
    {"cpBodySetAngle", (void **)&cp_body_set_angle},
    {"cpBodySetTorque", (void **)&cp_body_set_torque},
    {"cpBodyUpdatePosition", (void **)&cp_body_update_position},
    {"cpSpaceAddBody", (void **)&cp_space_add_body},
    {"cpSpaceAddShape", (void **)&cp_space_add_shape},
    {"cpSpaceRemoveBody", (void **)&cp_space_remove_body},
    {"cpSpaceRemoveShape", (void **)&cp_space_remove_shape},
    {"cpSpaceRemoveConstraint", (void **)&cp_space_remove_constraint},
    {"cpConstraintFree", (void **)&cp_constraint_free},
    {"cpBodyGetSpace", (void **)&cp_body_get_space},
};

PyDoc_STRVAR(bind_doc,
"bind(addresses)\n\n"
"{Chipmunk function name: its address} from pymunk's cffi module, for every function this\n"
"module calls; physics.py calls it once, before anything else here.");

static PyObject *
bind(PyObject *self, PyObject *arg)
{
    if (!PyDict_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "bind() takes a dict of addresses");
        return NULL;
    }
    enum { N = sizeof(fns) / sizeof(fns[0]) };
    void *found[N];
    for (size_t i = 0; i < N; i++) {  /* all of them, before any is set */
        PyObject *a = PyDict_GetItemString(arg, fns[i].name);
        if (a == NULL) {
            PyErr_Format(PyExc_KeyError, "no address for %s", fns[i].name);
            return NULL;
        }
        found[i] = PyLong_AsVoidPtr(a);
        if (found[i] == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "the address of %s is 0", fns[i].name);
            return NULL;
        }
    }
    for (size_t i = 0; i < N; i++)
        *fns[i].slot = found[i];
    bound = 1;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(functions_doc, "The Chipmunk functions bind() needs, by name.");

static PyObject *
functions(PyObject *self, PyObject *unused)
{
    size_t n = sizeof(fns) / sizeof(fns[0]);
    PyObject *names = PyTuple_New((Py_ssize_t)n);
    if (names == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *name = PyUnicode_FromString(fns[i].name);
        if (name == NULL) {
            Py_DECREF(names);
            return NULL;
        }
        PyTuple_SET_ITEM(names, (Py_ssize_t)i, name);
    }
    return names;
}

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS, run_doc},
    {"grip", grip_py, METH_VARARGS, grip_doc},
    {"place", place, METH_VARARGS, place_doc},
    {"take_out", take_out, METH_VARARGS, take_out_doc},
    {"bind", bind, METH_O, bind_doc},
    {"functions", functions, METH_NOARGS, functions_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "simulation._engine",
    "The run of a flick in C (see simulation/_engine.c).", -1, methods,
};

PyMODINIT_FUNC
PyInit__engine(void)
{
    PyObject *math = PyImport_ImportModule("math");
    if (math == NULL)
        return NULL;
    hypot_fn = PyObject_GetAttrString(math, "hypot");
    Py_DECREF(math);
    PyObject *builtins = PyImport_ImportModule("builtins");
    if (builtins == NULL)
        return NULL;
    round_fn = PyObject_GetAttrString(builtins, "round");
    Py_DECREF(builtins);
    if (hypot_fn == NULL || round_fn == NULL)
        return NULL;
#define INTERN(var, s) if ((var = PyUnicode_InternFromString(s)) == NULL) return NULL
    INTERN(s_addr, "addr"); INTERN(s_key, "key"); INTERN(s_x, "x"); INTERN(s_y, "y");
    INTERN(s_hx, "hx"); INTERN(s_hy, "hy"); INTERN(s_r, "r"); INTERN(s_ext, "ext");
    INTERN(s_decel, "decel"); INTERN(s_alpha, "alpha"); INTERN(s_slide_f, "slide_f");
    INTERN(s_spin_f, "spin_f"); INTERN(s_slide, "slide"); INTERN(s_spin, "spin");
    INTERN(s_event, "_event"); INTERN(s_after_event, "_after_event");
    INTERN(s_watch, "_watch"); INTERN(s_watched, "_watched");
#undef INTERN
    return PyModule_Create(&module);
}
