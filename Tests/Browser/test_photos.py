"""An uploaded photo on the entry page that links to it, in Chromium: shown (its naturalWidth is
more than 0, so it was fetched and decoded under the page's Content-Security-Policy), with the
width, height, alt and lazy loading the page gives it."""

import base64
import json
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# A 6 × 4 red PNG (made by Pillow).
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAYAAAAECAIAAAAiZtkUAAAAFElEQVR4nGM8ISfHgAqYGDAAcUIATU4BDAwQ/fcAAAAASUVORK5CYII=")


def upload(server, user, data, content_type):
    request = urllib.request.Request(server.url + "/api/media", data=data, method="POST")
    request.add_header("Content-Type", content_type)
    request.add_header("Authorization", f"Bearer {server.user(user)}")
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 201
        return json.loads(response.read())


def test_the_entry_page_shows_the_uploaded_image(server, browser):
    image = upload(server, "carol", PNG, "image/png")
    entry = server.post("carol", "A red square", f"Before.\n\n![a red square]({image['url']})\n\nAfter.")
    browser.get(server.url + f"/entries/{entry['entry_id']}")
    element = browser.find_element(By.CSS_SELECTOR, "#entry-body img")
    assert element.get_attribute("alt") == "a red square"
    assert element.get_attribute("width") == "6" and element.get_attribute("height") == "4"
    assert element.get_attribute("loading") == "lazy"
    WebDriverWait(browser, 30).until(lambda driver: driver.execute_script("return arguments[0].complete", element))
    assert browser.execute_script("return arguments[0].naturalWidth", element) == 6
    violations = [entry for entry in browser.get_log("browser") if "Content Security Policy" in entry.get("message", "")]
    assert violations == []


def test_a_private_entrys_image_is_a_404_to_the_reader(server):
    image = upload(server, "carol", PNG, "image/png")
    server.post("carol", "Hidden", f"![secret]({image['url']})", visibility="private")
    status, headers, _ = server.get(image["url"])
    assert status == 404 and headers["Content-Type"].startswith("text/html")
