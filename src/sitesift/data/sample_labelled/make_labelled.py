"""Generate the bundled labelled sample: pages of three invented university computer-science
departments and a few small invented sites, each page labelled with its class as WebKB's are
(`course`, `faculty`, `project`, `student`, `other`), for `sitesift mine`.

Writes ``pages/<id>.html`` and ``index.jsonl`` beside this file (the layout of the evaluation
corpora, with WebKB's `label` and `split`). Deterministic (``random.Random`` seeded per page),
standard library only: a rerun writes byte-identical files. Every name, course, project,
sentence and template string here is invented for sitesift; the domains use the reserved
``.example`` TLD. Run: ``python make_labelled.py`` (from any directory).
"""

from __future__ import annotations

import html
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = "sitesift-labelled-sample"

# three departments with templates of their own (the `split` is the university, as WebKB's)
UNIVERSITIES = {
    "ashmere": {
        "name": "Ashmere University", "dept": "Department of Computer Science",
        "nav": ["Home", "About the Department", "People", "Research Groups", "Courses",
                "Graduate Admissions", "Seminars", "Library", "Computing Facilities", "Contact"],
        "footer": "Department of Computer Science, Ashmere University, Foundry Lane, Ashmere. "
                  "Questions about these pages go to the departmental webmaster. "
                  "Copyright Ashmere University Board of Regents. All rights reserved.",
        "notice": "Ashmere Computing Laboratory: the lab will close for maintenance on "
                  "Saturday morning.",
    },
    "bellhaven": {
        "name": "Bellhaven University", "dept": "School of Computing Sciences",
        "nav": ["Bellhaven Computing", "Faculty and Staff", "Students", "Teaching", "Research",
                "Technical Reports", "Events Calendar", "Jobs at Bellhaven", "Search"],
        "footer": "School of Computing Sciences, Bellhaven University, North Campus, Bellhaven. "
                  "Maintained by the Bellhaven computing support office; last revised in the "
                  "spring term. Bellhaven University is an equal opportunity employer.",
        "notice": "Bellhaven Computing Support: new accounts are issued at the help desk in "
                  "room 104.",
    },
    "corrick": {
        "name": "Corrick University", "dept": "Department of Computer Sciences",
        "nav": ["Corrick CS Home", "Directory", "Undergraduate Programme", "Graduate Programme",
                "Research Areas", "Colloquia", "Alumni News", "Visiting Corrick", "Help"],
        "footer": "Corrick University, Department of Computer Sciences, Tower Building, Corrick. "
                  "Send comments on this web server to the Corrick systems group. "
                  "Copyright Corrick University; these pages are provided for information only.",
        "notice": "Corrick CS Colloquium series: this week's talk moves to the Tower Building "
                  "auditorium.",
    },
}
# the held-out split of small sites, each of one or two pages and no shared template
MISC_SITES = ["dunmore.example", "elmsfield.example", "fenwick-college.example",
              "glasslyn.example", "harrowgate.example", "islay-tech.example"]

FIRST = ["Alice", "Ben", "Carmen", "Deepak", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
         "Kavya", "Liam", "Marta", "Noor", "Oskar", "Priya", "Quentin", "Rosa", "Samir", "Tess"]
LAST = ["Abbott", "Brandt", "Castell", "Dunmore", "Ellery", "Frost", "Galloway", "Hale",
        "Ingram", "Jarvis", "Kessler", "Lowry", "Marsh", "Novak", "Orton", "Pryce", "Quill",
        "Rowan", "Sutter", "Thorne"]
AREAS = ["operating systems", "databases", "machine learning", "computer graphics",
         "programming languages", "computer networks", "theory of computation",
         "distributed systems", "computer architecture", "artificial intelligence"]
COURSES = {"operating systems": "Operating Systems", "databases": "Database Systems",
           "machine learning": "Machine Learning", "computer graphics": "Computer Graphics",
           "programming languages": "Programming Languages",
           "computer networks": "Computer Networks", "theory of computation": "Automata Theory",
           "distributed systems": "Distributed Computing",
           "computer architecture": "Computer Architecture",
           "artificial intelligence": "Introduction to Artificial Intelligence"}
PROJECTS = ["Lantern", "Kestrel", "Meridian", "Tessellate", "Quarry", "Halyard", "Juniper",
            "Orrery", "Beacon", "Cobalt"]

# the sentences of each class's pages, with {area}, {course}, {person}, ... filled in
CLASS_SENTENCES = {
    "course": [
        "Lectures meet on Tuesdays and Thursdays from 10:30 to 11:50 in room {n}.",
        "The course covers {area}, with weekly homework and two programming assignments.",
        "Homework {k} is due in class on Friday; late homework loses ten percent a day.",
        "Grading: homework 30%, programming assignments 30%, midterm exam 15%, final exam 25%.",
        "The required textbook is on reserve in the library; the lecture notes are posted "
        "after each class.",
        "Office hours: the instructor, {person}, holds office hours on Wednesday afternoons.",
        "The teaching assistant runs a discussion section on Mondays to review the homework.",
        "Prerequisites: a course in data structures and some programming experience in C.",
        "The midterm exam is in week seven and covers the first six lectures.",
        "Please read the syllabus and the course policies on collaboration and cheating.",
        "Lecture {k}: {area}, part {k}; the slides are available in PostScript.",
        "Assignment {k} asks you to implement a small project in groups of two students.",
    ],
    "faculty": [
        "I am an associate professor in the department; my research is in {area}.",
        "My research interests include {area} and its applications, especially {area2}.",
        "Selected publications: papers on {area} in recent conference proceedings and journals.",
        "I teach the graduate course on {course} and an undergraduate seminar.",
        "I received my Ph.D. from another university and joined this faculty {k} years ago.",
        "Prospective graduate students interested in {area} are welcome to contact me.",
        "My research group is supported by grants from a national science foundation.",
        "I serve on the program committee of several conferences on {area2}.",
        "Professor {person} is the director of the {project} laboratory.",
        "Office, phone and mailing address are listed in the department directory.",
        "Curriculum vitae and a list of recent talks and publications are available.",
    ],
    "project": [
        "The {project} project studies {area} for large systems.",
        "{project} is a research project funded by a grant from a national research agency.",
        "Project members: faculty, graduate students and visiting researchers.",
        "Our goal is a prototype system for {area2} that scales to thousands of machines.",
        "Recent papers and technical reports from the project are listed below.",
        "The {project} software release is available for research use.",
        "The project is led by {person} and collaborates with industrial partners.",
        "We meet every week to discuss the design of the {project} prototype.",
        "Overview, publications, people, software, related projects.",
        "Funding for the {project} project comes from several research grants.",
        "The prototype implementation uses techniques from {area}.",
    ],
    "student": [
        "Welcome to my home page! I am a graduate student in computer science.",
        "I am a second year Ph.D. student working with my advisor, {advisor}, on {area}.",
        "My research interests are {area} and {area2}.",
        "In my spare time I enjoy hiking, photography and playing the guitar.",
        "This semester I am taking {course} and a seminar on {area2}.",
        "Here is my resume, a few pictures of my friends and links I like.",
        "I did my undergraduate degree in mathematics before starting graduate school.",
        "I am the teaching assistant for {course} this term.",
        "My hobbies include cooking, cycling and reading science fiction.",
        "Send me email if you want to talk about {area} or about my thesis.",
        "Things I am working on: a paper for a workshop and my qualifying exam.",
    ],
    "other": [
        "The department offers undergraduate and graduate degrees in computer science.",
        "This week's seminar: a visiting speaker on recent results in {area}.",
        "Graduate admissions: applications for the next academic year are due in January.",
        "The computing facilities include workstations and a laboratory of personal computers.",
        "News: the department welcomes new faculty members in {area} and {area2}.",
        "Technical reports of the department are available by anonymous FTP.",
        "The library keeps the proceedings of the major conferences in computer science.",
        "Staff directory, room numbers and telephone extensions.",
    ],
}
CLASS_TITLES = {
    "course": "CS {num}: {course}",
    "faculty": "{person}, Associate Professor",
    "project": "The {project} Project",
    "student": "{person}'s Home Page",
    "other": "Department News and Events",
}
PER_CLASS = {"course": 3, "faculty": 3, "project": 3, "student": 3, "other": 2}
MISC_PER_CLASS = {"course": 2, "faculty": 1, "project": 1, "student": 2}


def esc(text: str) -> str:
    return html.escape(text, quote=False)


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def content(cls: str, rng: random.Random) -> tuple[str, list[str]]:
    """A page's title and paragraphs: its class's sentences, in its own words."""
    area, area2 = rng.sample(AREAS, 2)
    fill = {"area": area, "area2": area2, "course": COURSES[area], "person": person(rng),
            "advisor": f"Professor {rng.choice(LAST)}",
            "project": rng.choice(PROJECTS), "num": str(rng.randint(100, 799)),
            "n": str(rng.randint(101, 340)), "k": str(rng.randint(2, 9))}
    sentences = rng.sample(CLASS_SENTENCES[cls], rng.randint(5, 7))
    paragraphs, paragraph = [], []
    for sentence in sentences:
        paragraph.append(sentence.format(**fill))
        if len(paragraph) >= rng.randint(1, 3):
            paragraphs.append(" ".join(paragraph))
            paragraph = []
    if paragraph:
        paragraphs.append(" ".join(paragraph))
    return CLASS_TITLES[cls].format(**fill), paragraphs


def university_page(uni: dict, cls: str, rng: random.Random) -> str:
    """A page of a department's site: its banner, navigation, notice and footer around the
    page's own content."""
    title, paragraphs = content(cls, rng)
    nav = " | ".join(f'<a href="/{i}.html">{esc(label)}</a>' for i, label in enumerate(uni["nav"]))
    body = "\n".join(f"<p>{esc(p)}</p>" for p in paragraphs)
    return (f"<html><head><title>{esc(title)}</title></head>\n"
            f'<body bgcolor="#ffffff">\n<table width="100%"><tr><td><b>{esc(uni["name"])}</b>'
            f"<br>{esc(uni['dept'])}</td></tr>\n<tr><td>{nav}</td></tr></table>\n"
            f"<p><i>{esc(uni['notice'])}</i></p>\n<hr>\n<h1>{esc(title)}</h1>\n{body}\n<hr>\n"
            f"<address>{esc(uni['footer'])}</address>\n</body></html>\n")


def misc_page(cls: str, rng: random.Random) -> str:
    """A page of a small site: hand-written, no template to speak of."""
    title, paragraphs = content(cls, rng)
    body = "\n".join(f"<p>{esc(p)}</p>" for p in paragraphs)
    return (f"<html><head><title>{esc(title)}</title></head>\n<body>\n<h2>{esc(title)}</h2>\n"
            f'{body}\n<p><a href="/">back</a></p>\n</body></html>\n')


def main() -> None:
    pages = HERE / "pages"
    pages.mkdir(exist_ok=True)
    for old in pages.glob("*.html"):
        old.unlink()
    rows = []

    def add(page_id: str, url: str, site: str, label: str, split: str, text: str) -> None:
        (pages / f"{page_id}.html").write_text(text, encoding="utf-8")
        rows.append({"id": page_id, "url": url, "site": site, "host": url.split("/")[2],
                     "host_how": "source", "label": label, "split": split})

    for split, uni in UNIVERSITIES.items():
        site = f"{split}.example"
        for cls, count in PER_CLASS.items():
            for n in range(count):
                page_id = f"{split}-{cls}-{n + 1:02d}"
                rng = random.Random(f"{SEED}/{page_id}")
                add(page_id, f"http://www.cs.{site}/{cls}/{n + 1}.html", site, cls, split,
                    university_page(uni, cls, rng))
    n = 0
    for cls, count in MISC_PER_CLASS.items():
        for _ in range(count):
            site = MISC_SITES[n % len(MISC_SITES)]
            n += 1
            page_id = f"misc-{cls}-{n:02d}"
            rng = random.Random(f"{SEED}/{page_id}")
            add(page_id, f"http://www.{site}/~{cls}{n}/index.html", site, cls, "misc",
                misc_page(cls, rng))
    with open(HERE / "index.jsonl", "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row) + "\n")
    print(f"wrote {len(rows)} pages to {pages}")


if __name__ == "__main__":
    main()
