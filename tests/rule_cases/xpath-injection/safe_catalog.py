def titles(tree, name):
    return tree.getroot().attrib.get(name)
